package mux

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
	"github.com/mcpsh/mcp/search"
)

// Cached returns a server's authorized tools as last recorded in the
// catalog cache, without connecting; ok is false when it has not been seen,
// and for a server that may not be reached (its directory is not trusted).
func (e *Engine) Cached(server string) (tools []catalog.Tool, ok bool) {
	s := e.Surface()
	srv, found := s.Server(server)
	if !found || e.refusal(srv.ID) != nil {
		return nil, false
	}
	entry := e.cached(srv.ID)
	if entry == nil {
		return nil, false
	}
	return s.Filter(srv.ID, entry.Tools), true
}

// LastListed are the names of the tools each server of cfg listed when it was
// last seen, as it listed them (the catalog cache, unfiltered), without
// connecting: what `mcp check` shows each exclusion to cover. Each of
// opts is a way connections may have declared themselves (a server may
// list other tools for another declaration); the first that has a list
// answers. A server not seen, or whose directory is not trusted, has none.
func LastListed(cfg *Config, opts ...upstream.Options) map[string][]string {
	out := map[string][]string{}
	for _, o := range opts {
		eng := NewEngineFor(cfg, o)
		for _, srv := range cfg.Surface.Servers {
			if _, done := out[srv.ID]; done || eng.refusal(srv.ID) != nil {
				continue
			}
			if entry := eng.cached(srv.ID); entry != nil {
				out[srv.ID] = catalog.Names(entry.Tools)
			}
		}
		_ = eng.Close()
	}
	return out
}

// cached is a server's entry in the catalog cache, or nil.
func (e *Engine) cached(server string) *catalog.CacheEntry {
	if e.cache == nil {
		return nil
	}
	key, ok := e.EndpointKey(server)
	if !ok {
		return nil
	}
	entry := e.cache.Load(key)
	if entry == nil || entry.Capabilities != e.declared {
		// A list obtained with another declaration is not this engine's.
		return nil
	}
	return entry
}

// fresh says whether a cache entry may answer for a server: it is recent
// and the server has not been unavailable since it was written, so that a
// server that needs a login or went down says so.
func (e *Engine) fresh(server string, entry *catalog.CacheEntry) bool {
	e.mu.Lock()
	failed := e.failed[manifests.CanonicalID(server)]
	e.mu.Unlock()
	ttl := CacheTTL
	if entry.TTL != nil {
		// The server's own word (ttlMs), bounded by the connection.
		ttl = *entry.TTL
	}
	return time.Since(entry.Fetched) < ttl && entry.Fetched.After(failed)
}

// noteFailure records when a server was last unavailable.
func (e *Engine) noteFailure(server string, err error) {
	var ue *upstream.UnavailableError
	if !errors.As(err, &ue) || errors.Is(err, context.Canceled) {
		return
	}
	e.mu.Lock()
	e.failed[manifests.CanonicalID(server)] = time.Now()
	e.mu.Unlock()
}

func (e *Engine) server(id string) (*catalog.ServerSurface, *catalog.Surface, error) {
	s := e.Surface()
	srv, ok := s.Server(id)
	if !ok {
		return nil, s, s.NotAvailable(id, "")
	}
	return srv, s, nil
}

// CacheTTL is how long a tool list in the catalog cache answers for a
// server that is not connected. A connected server's list is always its
// own, kept current by its list_changed notifications.
const CacheTTL = time.Hour

// Bind connects to a server and lists its tools, as a required server must
// at session start: never from the cache.
func (e *Engine) Bind(ctx context.Context, server string) ([]catalog.Tool, error) {
	return e.tools(ctx, server, true)
}

// Tools lists a server's authorized tools. A server that is not connected
// and was listed within CacheTTL answers from the catalog cache.
func (e *Engine) Tools(ctx context.Context, server string) ([]catalog.Tool, error) {
	return e.tools(ctx, server, false)
}

func (e *Engine) tools(ctx context.Context, server string, connect bool) ([]catalog.Tool, error) {
	srv, s, err := e.server(server)
	if err != nil {
		return nil, err
	}
	// What an untrusted recipe says is not shown as if it could be used,
	// not even from the cache.
	if err := e.refusal(srv.ID); err != nil {
		return nil, err
	}
	if !connect && !e.connected(srv.ID) {
		if entry := e.cached(srv.ID); entry != nil && e.fresh(srv.ID, entry) {
			return s.Filter(srv.ID, entry.Tools), nil
		}
	}
	tools, broke, err := e.listed(ctx, srv)
	if broke && ctx.Err() == nil {
		// Listing is safe to repeat: one more try on a fresh connection
		// hides a server that went away between two uses.
		tools, _, err = e.listed(ctx, srv)
	}
	e.noteFailure(srv.ID, err)
	if err != nil {
		return nil, err
	}
	return s.Filter(srv.ID, tools), nil
}

// listed returns a server's tools as listed; broke says the connection
// broke under the request, so that a new one might succeed.
func (e *Engine) listed(ctx context.Context, srv *catalog.ServerSurface) (_ []catalog.Tool, broke bool, _ error) {
	c, err := e.connect(ctx, srv)
	if err != nil {
		return nil, false, err
	}
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	if c.tools == nil {
		c.busy.Add(1)
		gen := c.changes.Load()
		tools, err := c.up.ListTools(ctx)
		c.busy.Add(-1)
		c.touch()
		if err != nil {
			broke = c.dead()
			e.forgetBroken(srv.ID, c, err)
			return nil, broke, err
		}
		c.setTools(tools, gen)
		e.record(srv.ID, c.up, tools)
	}
	return c.tools, false, nil
}

func (e *Engine) record(server string, up upstream.Conn, tools []catalog.Tool) {
	key, ok := e.EndpointKey(server)
	if e.cache == nil || !ok {
		return
	}
	hint := up.CacheHint()
	// A cache that cannot be written only costs a later reconnect.
	_ = e.cache.Store(key, &catalog.CacheEntry{Server: server, Fetched: time.Now().UTC(), Tools: tools,
		Instructions: up.Instructions(), Protocol: up.ProtocolVersion(), TTL: hint.TTL, Scope: hint.Scope,
		Capabilities: e.declared})
}

// Instructions are what a server of the surface said, at initialize, about
// how to use it: from its connection, else from the catalog cache; ok is
// false when the server has not been seen.
func (e *Engine) Instructions(server string) (text string, ok bool) {
	srv, found := e.Surface().Server(server)
	if !found {
		return "", false
	}
	if c := e.live(srv.ID); c != nil {
		return c.up.Instructions(), true
	}
	if entry := e.cached(srv.ID); entry != nil {
		return entry.Instructions, true
	}
	return "", false
}

// Tool returns one authorized tool. A tool outside the surface and a tool
// the server does not offer give the same NotAvailableError. A tool the
// cached list lacks is looked for again on a live connection: the server
// may have added it since. The name may write "_" for the tool's "-" or
// the other way round (catalog.ResolveTool); a name that means no tool is
// answered with suggestions among the surface's tools only.
func (e *Engine) Tool(ctx context.Context, server, tool string) (catalog.Tool, error) {
	s := e.Surface()
	srv, ok := s.Server(server)
	if !ok {
		return catalog.Tool{}, s.NotAvailable(server, tool)
	}
	if !srv.All {
		// The surface names its tools: the name is resolved against them
		// before anything is listed.
		name, err := s.ResolveTool(server, tool, srv.Tools)
		if err != nil {
			return catalog.Tool{}, err
		}
		tool = name
	}
	live := e.connected(server)
	tools, err := e.Tools(ctx, server)
	if err != nil {
		if !srv.Allowed(tool) {
			return catalog.Tool{}, s.NotAvailable(server, tool)
		}
		return catalog.Tool{}, err
	}
	if t, ok := find(tools, tool); ok {
		return t, nil
	}
	if !live && srv.Allowed(tool) {
		if tools, err = e.Bind(ctx, server); err != nil {
			return catalog.Tool{}, err
		}
		if t, ok := find(tools, tool); ok {
			return t, nil
		}
	}
	name, err := s.ResolveTool(server, tool, catalog.Names(tools))
	if err != nil {
		return catalog.Tool{}, err
	}
	t, _ := find(tools, name)
	return t, nil
}

func find(tools []catalog.Tool, name string) (catalog.Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return catalog.Tool{}, false
}

// Call calls an authorized tool that the server lists (Tool): a name the
// server does not list is not sent, and gets the same answer as one the
// surface does not authorize, so that no caller can tell them apart. A
// call is never repeated: when the connection breaks under it, the
// caller gets the error and the next call reconnects.
func (e *Engine) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	t, err := e.Tool(ctx, server, tool)
	if err != nil {
		return nil, err
	}
	srv, _ := e.Surface().Server(server)
	return e.call(ctx, srv, t, args)
}

// Invoke implements Backend: the gate is checked once, by Tool, and the
// arguments are checked against the schema as compiled the first time.
func (e *Engine) Invoke(ctx context.Context, server, tool string, in Args) (*Invoked, error) {
	t, err := e.Tool(ctx, server, tool)
	if err != nil {
		return nil, err
	}
	args, err := catalog.PrepareArgs(t.InputSchema, in.Base, in.Pairs, in.AllowUnknown)
	if err != nil {
		return nil, withSignature(t, err)
	}
	srv, _ := e.Surface().Server(t.Server)
	res, err := e.call(ctx, srv, t, args)
	if err != nil {
		return nil, err
	}
	return &Invoked{Server: t.Server, Tool: t.Name, Result: res}, nil
}

// withSignature has an error about a call's arguments name the tool and
// its signature.
func withSignature(t catalog.Tool, err error) error {
	sig := t.Server + "." + t.Signature()
	var ue *catalog.UnknownArgsError
	var ie *catalog.InvalidArgsError
	switch {
	case errors.As(err, &ue):
		ue.Tool, ue.Signature = t.ID(), sig
	case errors.As(err, &ie):
		ie.Signature = sig
	}
	return err
}

// call calls t. A tool given by name only (Raw unset) is looked up for
// its taskSupport and for its input schema, which tells the connection
// which arguments travel in headers.
func (e *Engine) call(ctx context.Context, srv *catalog.ServerSurface, t catalog.Tool, args json.RawMessage) (*catalog.Result, error) {
	c, err := e.connect(ctx, srv)
	if err != nil {
		e.noteFailure(srv.ID, err)
		return nil, err
	}
	if t.Raw == nil {
		t = e.known(srv.ID, c, t)
	}
	if t.InputSchema != nil {
		ctx = upstream.WithInputSchema(ctx, t.InputSchema)
	}
	c.busy.Add(1)
	res, err := c.up.CallTool(upstream.WithTaskSupport(ctx, t.TaskSupport), t.Name, args)
	c.busy.Add(-1)
	c.touch()
	if err != nil {
		e.noteFailure(srv.ID, err)
		e.forgetBroken(srv.ID, c, err)
		return nil, err
	}
	return res, nil
}

// known is the tool of that name as the connection listed it, or else as
// the catalog cache has it; t itself when neither has it. It never waits
// for a list in flight: that list is not the one the caller chose the
// tool from.
func (e *Engine) known(server string, c *link, t catalog.Tool) catalog.Tool {
	var tools []catalog.Tool
	if p := c.lastList.Load(); p != nil {
		tools = *p
	}
	if tools == nil {
		if entry := e.cached(server); entry != nil {
			tools = entry.Tools
		}
	}
	if found, ok := find(tools, t.Name); ok {
		return found
	}
	return t
}

// Known returns a server's authorized tools from the catalog cache when it
// has been seen, however long ago, and else lists them. Search and the
// script runner use it: a server seen before is not contacted.
func (e *Engine) Known(ctx context.Context, server string) ([]catalog.Tool, error) {
	if tools, ok := e.Cached(server); ok {
		return tools, nil
	}
	return e.Tools(ctx, server)
}

// seen is a server's authorized tools as they were last seen (Listing
// Seen), without connecting: its live connection's list, else the catalog
// cache's however old, else none, with the protocol revision they were
// seen with; the cache is read once. A server that may not be reached
// (its directory is not trusted) has none.
func (e *Engine) seen(server string) ServerTools {
	st := ServerTools{ID: server}
	if e.refusal(server) != nil {
		return st
	}
	s := e.Surface()
	var list *[]catalog.Tool
	c := e.live(server)
	if c != nil {
		list = c.lastList.Load()
	}
	if list != nil {
		st.Tools, st.Protocol = s.Filter(server, *list), c.up.ProtocolVersion()
	} else if entry := e.cached(server); entry != nil {
		st.Tools, st.Protocol = s.Filter(server, entry.Tools), entry.Protocol
	}
	st.Count = len(st.Tools)
	return st
}

// Catalog implements Backend: every server's tools as how says, fetched
// four at a time.
func (e *Engine) Catalog(ctx context.Context, how Listing) (*Catalog, error) {
	s := e.Surface()
	out := &Catalog{Surface: s, Servers: make([]ServerTools, len(s.Servers))}
	var g errgroup.Group
	g.SetLimit(4)
	for i, srv := range s.Servers {
		g.Go(func() error {
			if how == Seen {
				out.Servers[i] = e.seen(srv.ID)
				return nil
			}
			list := e.Tools
			if how == Known {
				list = e.Known
			}
			tools, err := list(ctx, srv.ID)
			out.Servers[i] = ServerTools{ID: srv.ID, Tools: tools, Count: len(tools), Err: err, Protocol: e.protocol(srv.ID)}
			return nil
		})
	}
	_ = g.Wait()
	return out, nil
}

// protocol is the MCP revision a server speaks: its connection's, else the
// one it was last listed with.
func (e *Engine) protocol(server string) string {
	if c := e.live(server); c != nil {
		return c.up.ProtocolVersion()
	}
	if entry := e.cached(server); entry != nil {
		return entry.Protocol
	}
	return ""
}

// Search implements Backend. Searches run one at a time, so that two never
// wait for each other's lock on the persisted index.
func (e *Engine) Search(ctx context.Context, req search.Request) (*search.Answer, error) {
	e.searchMu.Lock()
	defer e.searchMu.Unlock()
	return search.Run(ctx, e, req)
}

// forgetBroken drops a server's connection after err, when err says the
// connection is of no more use. A wider scope that one call needs (403
// insufficient_scope) is not such an error: the login still holds for
// the rest, and the connection reads the stored login again once it
// changes, so that calls made meanwhile, and the call made again after a
// wider login, go on over it. A login that is gone is: what is listed
// next says so.
func (e *Engine) forgetBroken(server string, c *link, err error) {
	var ue *upstream.UnavailableError
	var lr *auth.LoginRequiredError
	wider := errors.As(err, &lr) && len(lr.Scopes) > 0
	if errors.As(err, &ue) && !wider && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		e.drop(manifests.CanonicalID(server), c)
		_ = c.up.Close()
	}
}
