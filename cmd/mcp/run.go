package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/idle"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/search"
)

type runCmd struct {
	File     string `arg:"" optional:"" help:"The program: a file, or - for stdin." placeholder:"FILE|-"`
	Eval     string `short:"e" name:"eval" help:"The program, given inline." placeholder:"CODE"`
	MaxCalls int    `name:"max-calls" default:"100" help:"Most tool calls the program may make."`

	AllowUnknown bool `name:"allow-unknown" help:"Send arguments a tool's input schema does not declare (otherwise refused when the schema lists its arguments)."`
}

func (c *runCmd) Run(a *app) error {
	// The program's own process starts while the configuration is read.
	child := script.StartChild()
	defer child.Close()
	name, src, err := c.source(a)
	if err != nil {
		return err
	}
	return a.withBackend(func(ctx context.Context, b mux.Backend) error {
		host, err := newRunHost(ctx, a, b, c.AllowUnknown)
		if err != nil {
			return err
		}
		timeout := a.globals.Timeout
		if timeout > 0 {
			// The command's context is the limit: a silence that each
			// progress report of a call restarts.
			timeout = -1
		}
		val, err := child.Run(ctx, host, name, src, script.Limits{
			Timeout:   timeout,
			MaxCalls:  c.MaxCalls,
			MaxOutput: int(a.globals.MaxOutput),
		}, a.aboveProgress(a.stderr))
		var limit *script.LimitError
		if errors.As(err, &limit) && limit.Kind == "timeout" && a.globals.Timeout > 0 {
			// --timeout bounds the command's silences, not the program's
			// own clock: the limit is the one the user gave.
			limit.Limit = int64(a.globals.Timeout)
		}
		if err != nil {
			return err
		}
		if a.globals.JSON {
			return a.writeJSON(val)
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", val)
		return err
	})
}

func (c *runCmd) source(a *app) (name, src string, err error) {
	if c.Eval != "" {
		if c.File != "" {
			return "", "", &usageError{msg: "give the program as FILE or with -e, not both"}
		}
		return "-e", c.Eval, nil
	}
	name, from, open := "stdin", "stdin", idle.StdinOpener(a.stdin)
	if c.File != "" && c.File != "-" {
		name, from, open = filepath.Base(c.File), c.File, idle.FileOpener(c.File)
	}
	b, err := idle.ReadInput("the program", from, a.globals.Timeout, maxProgram, open)
	var te *idle.InputTimeoutError
	switch {
	case errors.As(err, &te):
		return "", "", err
	case err != nil:
		return "", "", &usageError{msg: err.Error()}
	case len(b) > maxProgram && from == "stdin":
		return "", "", &usageError{msg: "the program is larger than 1 MiB"}
	case len(b) > maxProgram:
		return "", "", &usageError{msg: fmt.Sprintf("cannot read %s (a program is at most 1 MiB)", c.File)}
	}
	return name, string(b), nil
}

const maxProgram = 1 << 20

// runHost gives a program the backend's surface. Every call goes through
// the backend, and so through the catalog gate.
type runHost struct {
	a            *app
	b            mux.Backend
	surface      *catalog.Surface
	tools        map[string][]catalog.Tool // authorized, by declared server id
	down         map[string]error          // why a server could not be listed, by declared id
	allowUnknown bool

	// stepMu lets one call at a time log in again for a wider scope, and
	// steppedUp names the servers and scopes tried, so that calls made
	// together log in once.
	stepMu    sync.Mutex
	steppedUp map[string]bool
}

var _ script.Host = (*runHost)(nil)

// newRunHost learns each server's authorized tools: from the catalog cache
// when the server has been seen, else by connecting. A server that cannot
// be reached contributes no tools; calls of it fail as it did. A
// server whose directory is not trusted fails the run before it starts.
func newRunHost(ctx context.Context, a *app, b mux.Backend, allowUnknown bool) (*runHost, error) {
	cat, err := b.Catalog(ctx, mux.Known)
	if err != nil {
		return nil, err
	}
	h := &runHost{a: a, b: b, surface: cat.Surface, tools: map[string][]catalog.Tool{}, down: map[string]error{},
		allowUnknown: allowUnknown, steppedUp: map[string]bool{}}
	for _, s := range cat.Servers {
		var u *manifests.UntrustedError
		if errors.As(s.Err, &u) {
			return nil, s.Err
		}
		if s.Err != nil {
			a.warn("%s: %s", s.ID, oneLine(s.Err))
			h.down[s.ID] = s.Err
			continue
		}
		h.tools[s.ID] = s.Tools
	}
	return h, nil
}

func (h *runHost) Tools() map[string][]string {
	out := make(map[string][]string, len(h.tools))
	for srv, tools := range h.tools {
		for _, t := range tools {
			out[srv] = append(out[srv], t.Name)
		}
	}
	for srv := range h.down {
		out[srv] = nil
	}
	return out
}

func (h *runHost) Unavailable(server string) error { return h.down[server] }

// Call builds and checks the arguments as `mcp call` does (the engine's
// Invoke: the same coercion of nulls, refusal of undeclared keys unless
// --allow-unknown, and validation against the input schema), then calls.
func (h *runHost) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	res, err := h.call(ctx, server, tool, args)
	// A server that asks for a wider scope gets it, as in `mcp call`, and
	// the call is made once more.
	if lr := h.a.stepUpFor(err); lr != nil {
		if err := h.stepUp(ctx, lr); err != nil {
			return nil, err
		}
		res, err = h.call(ctx, server, tool, args)
	}
	return res, err
}

func (h *runHost) call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	ctx, done := h.a.callProgress(ctx, server+"."+tool)
	defer done()
	out, err := h.b.Invoke(ctx, server, tool, mux.Args{Base: args, AllowUnknown: h.allowUnknown})
	if err != nil {
		return nil, err
	}
	return out.Result, nil
}

// stepUp logs in again for the wider scope lr asks for, once per server
// and scope in a run: a call that waited while another logged in for the
// same scope just calls again. The person's approval is no silence of
// --timeout.
func (h *runHost) stepUp(ctx context.Context, lr *auth.LoginRequiredError) error {
	scopes := slices.Sorted(slices.Values(lr.Scopes))
	key := lr.Server + " " + strings.Join(scopes, " ")
	h.stepMu.Lock()
	defer h.stepMu.Unlock()
	if h.steppedUp[key] {
		return nil
	}
	h.steppedUp[key] = true
	defer idle.Hold(ctx)()
	h.a.progressLine().Clear(nil) // the login speaks on stderr
	return h.a.stepUp(lr)
}

func (h *runHost) List(ctx context.Context, server string) ([]catalog.Tool, error) {
	if server != "" {
		srv, ok := h.surface.Server(server)
		if !ok {
			return nil, h.surface.NotAvailable(server, "")
		}
		return h.tools[srv.ID], nil
	}
	var all []catalog.Tool
	for _, srv := range h.surface.Servers {
		all = append(all, h.tools[srv.ID]...)
	}
	return all, nil
}

func (h *runHost) NotAvailable(server, tool string) *catalog.NotAvailableError {
	return h.surface.NotAvailable(server, tool)
}

func (h *runHost) Search(ctx context.Context, query string, limit int) ([]catalog.Tool, error) {
	ans, err := h.a.search(ctx, h.b, search.Request{Text: query, Limit: limit})
	if err != nil {
		return nil, err
	}
	return ans.Tools, nil
}
