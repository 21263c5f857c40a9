// Package runhost is what `mcp run`'s program reaches: a script.Host over
// a backend's surface, each call built, checked and made as `mcp call`
// makes it.
package runhost

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/idle"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/search"
)

// Hooks are what the host asks of the command that runs the program.
type Hooks struct {
	// Warn prints a warning line.
	Warn func(format string, args ...any)
	// Progress is ctx for one call of target (SERVER.TOOL), and the end of
	// its progress line.
	Progress func(ctx context.Context, target string) (context.Context, func())
	// StepUpFor is the login a failed call asks for, or nil.
	StepUpFor func(err error) *auth.LoginRequiredError
	// StepUp logs in again for the wider scope lr asks for.
	StepUp func(lr *auth.LoginRequiredError) error
	// Search answers a query on the backend.
	Search func(ctx context.Context, b mux.Backend, req search.Request) ([]catalog.Tool, error)
}

// Host gives a program the backend's surface. Every call goes through
// the backend, and so through the catalog gate.
type Host struct {
	hooks        Hooks
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

var _ script.Host = (*Host)(nil)

// New learns each server's authorized tools: from the catalog cache
// when the server has been seen, else by connecting. A server that cannot
// be reached contributes no tools; calls of it fail as it did. A
// server whose directory is not trusted fails the run before it starts.
func New(ctx context.Context, b mux.Backend, allowUnknown bool, hooks Hooks) (*Host, error) {
	cat, err := b.Catalog(ctx, mux.Known)
	if err != nil {
		return nil, err
	}
	h := &Host{hooks: hooks, b: b, surface: cat.Surface, tools: map[string][]catalog.Tool{}, down: map[string]error{},
		allowUnknown: allowUnknown, steppedUp: map[string]bool{}}
	for _, s := range cat.Servers {
		var u *manifests.UntrustedError
		if errors.As(s.Err, &u) {
			return nil, s.Err
		}
		if s.Err != nil {
			hooks.Warn("%s: %s", s.ID, clip.Error(s.Err))
			h.down[s.ID] = s.Err
			continue
		}
		h.tools[s.ID] = s.Tools
	}
	return h, nil
}

// Tools names each server's authorized tools; a server that could not be
// listed has none.
func (h *Host) Tools() map[string][]string {
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

// Unavailable is why server could not be listed, or nil.
func (h *Host) Unavailable(server string) error { return h.down[server] }

// Call builds and checks the arguments as `mcp call` does (the engine's
// Invoke: the same coercion of nulls, refusal of undeclared keys unless
// --allow-unknown, and validation against the input schema), then calls.
func (h *Host) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	res, err := h.call(ctx, server, tool, args)
	// A server that asks for a wider scope gets it, as in `mcp call`, and
	// the call is made once more.
	if lr := h.hooks.StepUpFor(err); lr != nil {
		if err := h.stepUp(ctx, lr); err != nil {
			return nil, err
		}
		res, err = h.call(ctx, server, tool, args)
	}
	return res, err
}

func (h *Host) call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	ctx, done := h.hooks.Progress(ctx, server+"."+tool)
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
func (h *Host) stepUp(ctx context.Context, lr *auth.LoginRequiredError) error {
	scopes := slices.Sorted(slices.Values(lr.Scopes))
	key := lr.Server + " " + strings.Join(scopes, " ")
	h.stepMu.Lock()
	defer h.stepMu.Unlock()
	if h.steppedUp[key] {
		return nil
	}
	h.steppedUp[key] = true
	defer idle.Hold(ctx)()
	return h.hooks.StepUp(lr)
}

// List is a server's authorized tools, or with server "" every server's.
func (h *Host) List(ctx context.Context, server string) ([]catalog.Tool, error) {
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

// NotAvailable is the surface's refusal of server.tool.
func (h *Host) NotAvailable(server, tool string) *catalog.NotAvailableError {
	return h.surface.NotAvailable(server, tool)
}

// Search ranks the surface's tools for query, as `mcp search` does.
func (h *Host) Search(ctx context.Context, query string, limit int) ([]catalog.Tool, error) {
	return h.hooks.Search(ctx, h.b, search.Request{Text: query, Limit: limit})
}
