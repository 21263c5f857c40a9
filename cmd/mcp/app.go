package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mcpsh/mcp/internal/idle"
	"github.com/mcpsh/mcp/internal/output"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/termsafe"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// app is what every command runs with.
type app struct {
	stdin io.Reader
	// stdout and stderr show text: what came from a server is made safe
	// for a terminal on the way (internal/termsafe). out and errOut are
	// the streams themselves, for --json, the MCP stream of mcp serve and
	// the progress line's own control sequence.
	stdout, stderr io.Writer
	out, errOut    io.Writer
	globals        *Globals

	recipeDir, agent string // host flags
	trustOnce        bool   // --trust
	sessionID        string // MCP_SESSION; set (even empty) means inside a session
	session          bool

	warnMu     sync.Mutex
	passedOnce sync.Once // the warnings of locate, said once

	lineOnce sync.Once
	line     *output.StatusLine // the progress line; nil when none is shown
}

func (a *app) inSession() bool { return a.session }

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	id, ok := os.LookupEnv(session.EnvVar)
	return &app{stdin: stdin, stdout: termsafe.NewWriter(stdout), stderr: termsafe.NewWriter(stderr),
		out: stdout, errOut: stderr, sessionID: id, session: ok}
}

// warn prints one warning line; it is safe for concurrent use.
func (a *app) warn(format string, args ...any) { a.note("warning: " + fmt.Sprintf(format, args...)) }

// note prints one line on stderr; it is safe for concurrent use.
func (a *app) note(line string) {
	a.warnMu.Lock()
	defer a.warnMu.Unlock()
	if a.globals != nil {
		a.progressLine().Clear(nil)
	}
	fmt.Fprintln(a.stderr, "mcp: "+line)
}

// context is cancelled by Ctrl-C or SIGTERM and after --timeout of
// silence: each progress report of a call (callProgress) restarts the
// clock.
func (a *app) context() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if a.progress() {
		ctx = mux.WithConnecting(ctx, a.connecting)
	}
	if a.globals.Timeout <= 0 {
		return ctx, stop
	}
	ctx, touch, cancel := idle.WithTimeout(ctx, a.globals.Timeout)
	return context.WithValue(ctx, touchKey{}, touch), func() { cancel(); stop() }
}

// locate finds the recipe for a host command: --recipe, else the nearest
// package.json with pi.mcp, else the user's own configuration. The
// package.json files it passed over are warnings, printed the first time.
func (a *app) locate() (root string, user bool, err error) {
	if a.recipeDir != "" {
		return a.recipeDir, false, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", false, err
	}
	loc, err := manifests.Locate(cwd)
	if err != nil {
		return "", false, err
	}
	a.passedOnce.Do(func() { a.warnAll(loc.PassedOver) })
	return loc.Root, loc.User, nil
}

// warnAll prints each line as a warning.
func (a *app) warnAll(lines []string) {
	for _, w := range lines {
		a.warn("%s", w)
	}
}

// target is what this invocation serves: its session, or on the host the
// recipe it is in (or the user's own configuration) and --agent.
func (a *app) target() (mux.Target, error) {
	if a.inSession() {
		return mux.SessionEnvTarget(a.sessionID)
	}
	root, user, err := a.locate()
	if err != nil {
		return mux.Target{}, err
	}
	t, err := mux.HostTarget(root, user, a.agent)
	t.TrustOnce = a.trustOnce
	return t, err
}

// config reads what this invocation serves, printing the reader's
// warnings on the host.
func (a *app) config() (mux.Target, *mux.Config, error) {
	t, err := a.target()
	if err != nil {
		return t, nil, err
	}
	cfg, err := t.Load()
	if cfg != nil && !a.inSession() {
		for _, w := range cfg.Warnings {
			a.warn("%s", w)
		}
	}
	return t, cfg, err
}

// upstreamOptions configure connections to servers. OAuth tokens come from
// `mcp auth login`; without a token store, servers that need a login say so.
func upstreamOptions() upstream.Options {
	opts := upstream.Options{ClientName: "mcp", ClientVersion: build.Number()}
	if mgr, err := newAuthManager(); err == nil {
		opts.Auth = mgr.RoundTripper
	}
	return opts
}

// openOptions are how the verbs reach servers: every request for input a
// server makes, and how it was answered, is a warning line.
func (a *app) openOptions() mux.OpenOptions {
	o := mux.OpenOptions{Upstream: upstreamOptions(), Warn: func(line string) { a.warn("%s", line) }, Note: a.note}
	o.Upstream.OnElicitation = func(e upstream.Elicitation) { a.warn("%s", e.String()) }
	o.Upstream.OnWarning = func(line string) { a.warn("%s", line) }
	if a.progress() {
		o.Connecting = a.connecting
	}
	return o
}

// withBackend runs fn with the backend of this invocation and a context
// that --timeout and Ctrl-C cancel; the backend is closed after.
func (a *app) withBackend(fn func(ctx context.Context, b mux.Backend) error) error {
	ctx, cancel := a.context()
	defer cancel()
	t, err := a.target()
	if err != nil {
		return err
	}
	b, err := mux.Open(ctx, t, a.openOptions())
	if err != nil {
		return err
	}
	defer b.Close()
	err = fn(ctx, b)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// --timeout ended it: the server was slow, not unavailable.
		err = upstream.Timed(err, a.globals.Timeout)
	}
	return err
}
