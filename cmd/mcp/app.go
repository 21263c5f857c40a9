package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// app is what every command runs with.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	globals        *Globals

	recipeDir, agent string // host flags
	sessionID        string // MCP_SESSION; set (even empty) means inside a session
	session          bool
}

func (a *app) inSession() bool { return a.session }

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	id, ok := os.LookupEnv(sessionEnv)
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, sessionID: id, session: ok}
}

func (a *app) warn(format string, args ...any) {
	fmt.Fprintf(a.stderr, "mcp: warning: "+format+"\n", args...)
}

// context is cancelled by Ctrl-C or SIGTERM and after --timeout.
func (a *app) context() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if a.progress() {
		ctx = mux.WithConnecting(ctx, a.connecting)
	}
	if a.globals.Timeout <= 0 {
		return ctx, stop
	}
	ctx, cancel := context.WithTimeout(ctx, a.globals.Timeout)
	return ctx, func() { cancel(); stop() }
}

// readRecipe reads the recipe at root, or the user's own configuration.
func readRecipe(root string, user bool) (*manifests.Recipe, error) {
	if !user {
		return manifests.Load(root)
	}
	home, _ := os.UserHomeDir()
	cfg, _ := os.UserConfigDir()
	return manifests.LoadUser(manifests.UserPaths{Home: home, Cwd: root, ConfigDir: cfg})
}

// locate finds the recipe for a host command: --recipe, else the nearest
// package.json with pi.mcp, else the user's own configuration.
func (a *app) locate() (root string, user bool, err error) {
	if a.recipeDir != "" {
		return a.recipeDir, false, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", false, err
	}
	root, ok, err := manifests.FindRoot(cwd)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return cwd, true, nil
	}
	return root, false, nil
}

// surface returns the recipe and the surface this invocation may use: a
// session's fixed surface, or on the host the package boundary or --agent.
func (a *app) surface() (*manifests.Recipe, *catalog.Surface, error) {
	if a.inSession() {
		st, err := session.Load(a.sessionID)
		if err != nil {
			return nil, nil, err
		}
		// Endpoints and credentials come from the files as they are now;
		// what may be reached was fixed when the session started.
		r, err := readRecipe(st.Root, st.User)
		if err != nil {
			return nil, nil, err
		}
		return r, st.Surface, nil
	}
	root, user, err := a.locate()
	if err != nil {
		return nil, nil, err
	}
	r, err := readRecipe(root, user)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range r.Warnings {
		a.warn("%s", w)
	}
	s, warns, err := catalog.Resolve(r, a.agent)
	for _, w := range warns {
		a.warn("%s", w)
	}
	return r, s, err
}

// engine returns an engine over this invocation's surface.
func (a *app) engine() (*mux.Engine, error) {
	r, s, err := a.surface()
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	return newEngineFor(s, r.Endpoints, func(line string) {
		mu.Lock()
		defer mu.Unlock()
		a.warn("%s", line)
	}), nil
}

func newEngine(r *manifests.Recipe, s *catalog.Surface) *mux.Engine {
	return newEngineFor(s, r.Endpoints, nil)
}

// newEngineFor returns an engine for a surface; report, if set, hears of
// every request for input a server makes and how it was answered.
func newEngineFor(s *catalog.Surface, endpoints map[string]manifests.Endpoint, report func(string)) *mux.Engine {
	opts := upstream.Options{
		ClientName:    "mcp",
		ClientVersion: versionString(),
	}
	if report != nil {
		opts.OnElicitation = func(e upstream.Elicitation) { report(e.String()) }
	}
	// OAuth tokens from `mcp auth login`; without a token store, servers
	// that need a login say so.
	if mgr, err := newAuthManager(); err == nil {
		opts.Auth = mgr.RoundTripper
	}
	eng := mux.NewEngine(s, endpoints, os.LookupEnv, opts)
	// The catalog cache is an optimisation: without one, search connects.
	if dir, err := catalog.DefaultCacheDir(); err == nil {
		if c, err := catalog.OpenCache(dir); err == nil {
			eng.SetCache(c)
		}
	}
	return eng
}

// withBackend runs fn with the backend of this invocation and a context
// that --timeout and Ctrl-C cancel; the backend is closed after.
func (a *app) withBackend(fn func(ctx context.Context, b mux.Backend) error) error {
	ctx, cancel := a.context()
	defer cancel()
	b, err := a.backend(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	return fn(ctx, b)
}
