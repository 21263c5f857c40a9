package main

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpsh/mcp/internal/output"
	"github.com/mcpsh/mcp/internal/vt"
	"github.com/mcpsh/mcp/mux/upstream"
)

// progress says whether to tell a person at a terminal that a server is
// slow to start: never with --json, NO_COLOR, or when stderr is not a
// terminal.
func (a *app) progress() bool {
	if a.globals == nil || a.globals.JSON || os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := a.errOut.(*os.File)
	return ok && a.stderrIsTerminal() && vt.Enable(f)
}

// progressDelay is how long a cold connect may take before it is shown.
const progressDelay = 300 * time.Millisecond

// connecting shows, after progressDelay, that the invocation waits for a
// server to start, on the status line; done clears the line. Of servers
// that start together, the one shown last has the line.
func (a *app) connecting(server string) (done func()) {
	line := a.statusLine()
	owner := new(int)
	var mu sync.Mutex
	over := false
	t := time.AfterFunc(progressDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			line.Write(owner, "mcp: starting "+server+"…")
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		over = true
		mu.Unlock()
		line.Clear(owner)
	}
}

// touchKey marks the function that restarts --timeout's clock in the
// command's context.
type touchKey struct{}

// callProgress is ctx for one tool call of target (SERVER.TOOL): it asks
// the server for progress, and each report restarts --timeout's clock and,
// on a terminal, shows on the progress line. done clears the line; call it
// before anything is printed of the call.
func (a *app) callProgress(ctx context.Context, target string) (_ context.Context, done func()) {
	touch, _ := ctx.Value(touchKey{}).(func())
	line := a.progressLine()
	owner := new(int)
	h := *upstream.HooksOf(ctx)
	h.OnProgress = func(p upstream.Progress) {
		if touch != nil {
			touch()
		}
		line.Show(owner, target, p.Message, p.Progress, p.Total)
	}
	return upstream.WithCallHooks(ctx, &h), func() { line.Clear(owner) }
}

// progressLine is the one stderr line that shows the latest progress of a
// call, overwritten in place; nil (showing nothing) when progress is not
// shown.
func (a *app) progressLine() *output.StatusLine {
	if !a.progress() {
		return nil
	}
	return a.statusLine()
}

// statusLine is the line of stderr that progress and server starts share.
func (a *app) statusLine() *output.StatusLine {
	a.lineOnce.Do(func() { a.line = output.NewStatusLine(a.errOut) })
	return a.line
}

// aboveProgress is w (which writes to stderr) clearing the progress line
// before each write, so that what a program prints never shares the line
// with a call's progress; the call's next report draws the line again.
func (a *app) aboveProgress(w io.Writer) io.Writer {
	return a.progressLine().Above(w)
}
