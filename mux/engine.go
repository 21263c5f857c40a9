package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// NoEndpointError says a server in the surface has no endpoint: no manifest
// or local binding says where it lives.
type NoEndpointError struct{ Server string }

func (e *NoEndpointError) Error() string {
	return fmt.Sprintf("server %s has no endpoint: no manifest or local binding says where it lives", e.Server)
}

// Engine serves one surface. It connects to servers lazily, shares one
// connection per server between concurrent callers, and puts every list
// and call through the catalog gate.
type Engine struct {
	surface   *catalog.Surface
	endpoints map[string]manifests.Endpoint // by canonical id
	lookup    func(string) (string, bool)
	opts      Options
	cache     *catalog.Cache // optional

	mu    sync.Mutex
	conns map[string]*link // by canonical id
}

type link struct {
	ready chan struct{} // closed when up/err are set
	up    Upstream
	err   error

	toolsMu sync.Mutex
	tools   []catalog.Tool // as listed, unfiltered; nil until listed
}

// NewEngine returns an engine for a surface. endpoints are keyed by
// canonical id and still hold ${VAR} references, which lookup resolves at
// connect time.
func NewEngine(s *catalog.Surface, endpoints map[string]manifests.Endpoint, lookup func(string) (string, bool), opts Options) *Engine {
	return &Engine{surface: s, endpoints: endpoints, lookup: lookup, opts: opts, conns: map[string]*link{}}
}

// SetCache makes the engine record every tool list it fetches, and lets
// Cached answer from what was recorded.
func (e *Engine) SetCache(c *catalog.Cache) { e.cache = c }

// Cached returns a server's authorized tools as last recorded, without
// connecting; ok is false when the server has not been seen.
func (e *Engine) Cached(server string) (tools []catalog.Tool, ok bool) {
	srv, err := e.server(server)
	if err != nil || e.cache == nil {
		return nil, false
	}
	ep, found := e.Endpoint(srv.ID)
	if !found {
		return nil, false
	}
	entry := e.cache.Load(catalog.EndpointKey(ep))
	if entry == nil {
		return nil, false
	}
	return e.surface.Filter(srv.ID, entry.Tools), true
}

// Surface is the surface the engine serves.
func (e *Engine) Surface() *catalog.Surface { return e.surface }

// Endpoint returns a server's endpoint as configured (unexpanded).
func (e *Engine) Endpoint(server string) (manifests.Endpoint, bool) {
	ep, ok := e.endpoints[manifests.CanonicalID(server)]
	return ep, ok
}

func (e *Engine) connect(ctx context.Context, srv *catalog.ServerSurface) (*link, error) {
	key := manifests.CanonicalID(srv.ID)
	e.mu.Lock()
	c, ok := e.conns[key]
	if !ok {
		c = &link{ready: make(chan struct{})}
		e.conns[key] = c
		e.mu.Unlock()
		c.up, c.err = e.dial(ctx, srv)
		close(c.ready)
		if c.err != nil {
			e.drop(key, c)
		}
		return c, c.err
	}
	e.mu.Unlock()
	select {
	case <-c.ready:
		return c, c.err
	case <-ctx.Done():
		return nil, &UnavailableError{Server: srv.ID, Err: ctx.Err()}
	}
}

func (e *Engine) dial(ctx context.Context, srv *catalog.ServerSurface) (Upstream, error) {
	ep, ok := e.endpoints[manifests.CanonicalID(srv.ID)]
	if !ok {
		return nil, &NoEndpointError{Server: srv.ID}
	}
	ep, err := ep.Expand(e.lookup)
	if err != nil {
		return nil, err
	}
	return Connect(ctx, ep, e.opts)
}

// drop forgets a connection so that the next use reconnects.
func (e *Engine) drop(key string, c *link) {
	e.mu.Lock()
	if e.conns[key] == c {
		delete(e.conns, key)
	}
	e.mu.Unlock()
}

func (e *Engine) server(id string) (*catalog.ServerSurface, error) {
	srv, ok := e.surface.Server(id)
	if !ok {
		return nil, &catalog.NotAvailableError{Server: id}
	}
	return srv, nil
}

// Bind connects to a server and lists its tools, as a required server must
// at session start.
func (e *Engine) Bind(ctx context.Context, server string) error {
	_, err := e.Tools(ctx, server)
	return err
}

// Tools lists a server's authorized tools.
func (e *Engine) Tools(ctx context.Context, server string) ([]catalog.Tool, error) {
	srv, err := e.server(server)
	if err != nil {
		return nil, err
	}
	c, err := e.connect(ctx, srv)
	if err != nil {
		return nil, err
	}
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	if c.tools == nil {
		tools, err := c.up.ListTools(ctx)
		if err != nil {
			e.forgetBroken(srv.ID, c, err)
			return nil, err
		}
		c.tools = tools
		e.record(srv.ID, tools)
	}
	return e.surface.Filter(srv.ID, c.tools), nil
}

func (e *Engine) record(server string, tools []catalog.Tool) {
	ep, ok := e.Endpoint(server)
	if e.cache == nil || !ok {
		return
	}
	// A cache that cannot be written only costs a later reconnect.
	_ = e.cache.Store(catalog.EndpointKey(ep), &catalog.CacheEntry{Server: server, Fetched: time.Now().UTC(), Tools: tools})
}

// Tool returns one authorized tool. A tool outside the surface and a tool
// the server does not offer give the same NotAvailableError.
func (e *Engine) Tool(ctx context.Context, server, tool string) (catalog.Tool, error) {
	if err := e.surface.Check(server, tool); err != nil {
		return catalog.Tool{}, err
	}
	tools, err := e.Tools(ctx, server)
	if err != nil {
		return catalog.Tool{}, err
	}
	for _, t := range tools {
		if t.Name == tool {
			return t, nil
		}
	}
	return catalog.Tool{}, &catalog.NotAvailableError{Server: server, Tool: tool}
}

// Call calls an authorized tool.
func (e *Engine) Call(ctx context.Context, server, tool string, args json.RawMessage) (*Result, error) {
	if err := e.surface.Check(server, tool); err != nil {
		return nil, err
	}
	srv, _ := e.surface.Server(server)
	c, err := e.connect(ctx, srv)
	if err != nil {
		return nil, err
	}
	res, err := c.up.CallTool(ctx, tool, args)
	if err != nil {
		e.forgetBroken(srv.ID, c, err)
		return nil, err
	}
	return res, nil
}

func (e *Engine) forgetBroken(server string, c *link, err error) {
	var ue *UnavailableError
	if errors.As(err, &ue) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		e.drop(manifests.CanonicalID(server), c)
		_ = c.up.Close()
	}
}

// Close closes every connection.
func (e *Engine) Close() error {
	e.mu.Lock()
	conns := e.conns
	e.conns = map[string]*link{}
	e.mu.Unlock()
	var errs []error
	for _, c := range conns {
		<-c.ready
		if c.up != nil {
			errs = append(errs, c.up.Close())
		}
	}
	return errors.Join(errs...)
}
