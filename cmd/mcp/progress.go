package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// progress says whether to tell a person at a terminal that a server is
// slow to start: never with --json, NO_COLOR, or when stderr is not a
// terminal.
func (a *app) progress() bool {
	if a.globals == nil || a.globals.JSON || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return a.stderrIsTerminal()
}

// progressDelay is how long a cold connect may take before it is shown.
const progressDelay = 300 * time.Millisecond

// connecting shows, after progressDelay, that the invocation waits for a
// server to start; done clears the line.
func (a *app) connecting(server string) (done func()) {
	var mu sync.Mutex
	shown, over := false, false
	t := time.AfterFunc(progressDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			fmt.Fprintf(a.errOut, "mcp: starting %s…", server)
			shown = true
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		over = true
		if shown {
			fmt.Fprint(a.errOut, "\r\x1b[K")
		}
	}
}
