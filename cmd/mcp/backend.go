package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/mux"
)

// backend returns what the verbs talk to: the multiplexer of this session,
// or outside a session of this recipe and agent, started when it is not
// running. Where none can run, it connects directly, with a warning.
func (a *app) backend(ctx context.Context) (mux.Backend, error) {
	if !mux.DaemonSupported || os.Getenv(noMuxEnv) != "" || (a.inSession() && !session.ValidID(a.sessionID)) {
		return a.engine()
	}
	if !a.inSession() && goRunBinary() {
		// go run deletes this binary when it exits; a multiplexer of its
		// build would serve no later invocation.
		return a.engine()
	}
	var spec daemonSpec
	if !a.inSession() {
		root, user, err := a.locate()
		if err != nil {
			return nil, err
		}
		if root, err = filepath.Abs(root); err != nil {
			return nil, err
		}
		spec = daemonSpec{Root: root, User: user, Agent: a.agent}
	}
	c, err := a.ensureDaemon(ctx, a.sessionID, a.inSession(), spec)
	if err != nil {
		var se *mux.StartError
		if !errors.As(err, &se) || !se.Config {
			if ctx.Err() != nil {
				return nil, err
			}
			a.warn("the multiplexer is unavailable (%s); connecting directly", oneLine(err))
		}
		// A configuration the multiplexer could not read: the direct
		// path reads it again and says what is wrong.
		return a.engine()
	}
	if !a.inSession() {
		for _, w := range c.Warnings() {
			a.warn("%s", w)
		}
	}
	if a.progress() {
		c.OnConnecting(a.connecting)
	}
	return c, nil
}

// ensureDaemon returns a client of the multiplexer of a session (inSession)
// or of spec, starting it when it is not running.
func (a *app) ensureDaemon(ctx context.Context, sessionID string, inSession bool, spec daemonSpec) (*mux.Client, error) {
	socket, err := socketFor(sessionID, inSession, spec)
	if err != nil {
		return nil, err
	}
	mk := func() (*exec.Cmd, error) {
		cmd, err := daemonCommand(sessionID, inSession, spec)
		if err != nil {
			return nil, err
		}
		if f, err := openLog(socket); err == nil {
			cmd.Stderr = f // closed by Ensure once the child has its copy
		}
		return cmd, nil
	}
	c, err := mux.Ensure(ctx, socket, mk)
	if err != nil || inSession {
		return c, err
	}
	// Outside a session the multiplexer expands ${VAR} with the
	// environment it started in; when ours differs (a new token was
	// exported, PATH changed), it gives way to one started from ours.
	if !c.SameEnv(selectorEnv...) {
		_ = c.Stop(ctx)
		if !mux.WaitGone(socket, 5*time.Second) {
			return nil, fmt.Errorf("the multiplexer for another environment did not stop")
		}
		return mux.Ensure(ctx, socket, mk)
	}
	return c, nil
}

// goRunBinary says whether this binary was built by `go run`, which keeps
// it in a temporary go-build directory and deletes it on exit.
func goRunBinary() bool {
	exe, err := os.Executable()
	return err == nil && isGoRunPath(exe)
}

func isGoRunPath(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

// progress says whether to tell a person at a terminal that a server is
// slow to start: never with --json, NO_COLOR, or when stderr is not a
// terminal.
func (a *app) progress() bool {
	if a.globals == nil || a.globals.JSON || os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := a.stderr.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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
			fmt.Fprintf(a.stderr, "mcp: starting %s…", server)
			shown = true
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		over = true
		if shown {
			fmt.Fprint(a.stderr, "\r\x1b[K")
		}
	}
}
