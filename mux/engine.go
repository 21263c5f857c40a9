package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsh/mcp/internal/exit"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// NoEndpointError says a server in the surface has no endpoint: no manifest
// or local binding says where it lives.
type NoEndpointError struct{ Server string }

func (e *NoEndpointError) ExitCode() int { return exit.Config }

func (e *NoEndpointError) Error() string {
	return fmt.Sprintf("server %s has no endpoint: no manifest or local binding says where it lives", e.Server)
}

// Backend is what the verbs use: an Engine in this process, or a Client of
// a multiplexer that holds one.
type Backend interface {
	Surface() *catalog.Surface
	Tools(ctx context.Context, server string) ([]catalog.Tool, error)
	Tool(ctx context.Context, server, tool string) (catalog.Tool, error)
	Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error)
	// Cached returns a server's authorized tools as last recorded, without
	// connecting; ok is false when the server has not been seen.
	Cached(server string) (tools []catalog.Tool, ok bool)
	// EndpointKey identifies a server's endpoint definition (a hash).
	EndpointKey(server string) (key string, ok bool)
	Close() error
}

// Engine serves one surface. It connects to servers lazily, shares one
// connection per server between concurrent callers, reconnects after a
// connection breaks, and puts every list and call through the catalog gate.
type Engine struct {
	lookup func(string) (string, bool)
	opts   upstream.Options
	cache  *catalog.Cache // optional

	life context.Context // cancelled by Close; bounds every dial
	stop context.CancelFunc

	mu        sync.Mutex
	surface   *catalog.Surface
	endpoints map[string]manifests.Endpoint // by canonical id
	conns     map[string]*link              // by canonical id
	failed    map[string]time.Time          // last time a server was unavailable
}

var _ Backend = (*Engine)(nil)

type link struct {
	epKey string        // the endpoint definition it was dialled from
	ready chan struct{} // closed when up/err are set
	up    upstream.Conn
	err   error

	lastUsed atomic.Int64 // unix nanoseconds
	busy     atomic.Int32 // calls in flight

	changes atomic.Int64 // tools/list_changed notifications so far

	toolsMu sync.Mutex
	tools   []catalog.Tool // as listed, unfiltered; nil until listed
	listed  int64          // changes seen when tools was listed
}

func (c *link) touch() { c.lastUsed.Store(time.Now().UnixNano()) }

// NewEngine returns an engine for a surface. endpoints are keyed by
// canonical id and still hold ${VAR} references, which lookup resolves at
// connect time.
func NewEngine(s *catalog.Surface, endpoints map[string]manifests.Endpoint, lookup func(string) (string, bool), opts upstream.Options) *Engine {
	life, stop := context.WithCancel(context.Background())
	return &Engine{surface: s, endpoints: endpoints, lookup: lookup, opts: opts, conns: map[string]*link{}, failed: map[string]time.Time{}, life: life, stop: stop}
}

// SetCache makes the engine record every tool list it fetches, and lets
// Cached answer from what was recorded.
func (e *Engine) SetCache(c *catalog.Cache) { e.cache = c }

// Surface is the surface the engine serves.
func (e *Engine) Surface() *catalog.Surface {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.surface
}

// endpoint returns a server's endpoint as configured (unexpanded).
func (e *Engine) endpoint(server string) (manifests.Endpoint, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ep, ok := e.endpoints[manifests.CanonicalID(server)]
	return ep, ok
}

// EndpointKey implements Backend. It keys the endpoint as expanded, so
// that one definition whose variables differ (another token, another
// option) has tools of its own in the cache; the key is a hash, so
// nothing secret is kept.
func (e *Engine) EndpointKey(server string) (string, bool) {
	ep, ok := e.endpoint(server)
	if !ok {
		return "", false
	}
	ep, err := ep.Expand(e.lookup)
	if err != nil {
		return "", false
	}
	return catalog.EndpointKey(ep), true
}

// Cached implements Backend.
func (e *Engine) Cached(server string) (tools []catalog.Tool, ok bool) {
	s := e.Surface()
	srv, found := s.Server(server)
	if !found {
		return nil, false
	}
	entry := e.cached(srv.ID)
	if entry == nil {
		return nil, false
	}
	return s.Filter(srv.ID, entry.Tools), true
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
	return e.cache.Load(key)
}

// trusted says whether a cache entry may answer for a server: it is recent
// and the server has not been unavailable since it was written, so that a
// server that needs a login or went down says so.
func (e *Engine) trusted(server string, entry *catalog.CacheEntry) bool {
	e.mu.Lock()
	failed := e.failed[manifests.CanonicalID(server)]
	e.mu.Unlock()
	return time.Since(entry.Fetched) < CacheTTL && entry.Fetched.After(failed)
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

// connected says whether a server has a live connection.
func (e *Engine) connected(server string) bool {
	e.mu.Lock()
	c, ok := e.conns[manifests.CanonicalID(server)]
	e.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case <-c.ready:
		return c.err == nil && !c.dead()
	default:
		return false
	}
}

// Reconfigure replaces the surface and the endpoints, as after the
// configuration files changed. Connections to servers that left the surface
// or whose endpoint definition changed are closed; the rest stay warm.
func (e *Engine) Reconfigure(s *catalog.Surface, endpoints map[string]manifests.Endpoint) {
	e.mu.Lock()
	e.surface, e.endpoints = s, endpoints
	var gone []*link
	for key, c := range e.conns {
		ep, ok := endpoints[key]
		_, inSurface := s.Server(key)
		if !ok || !inSurface || catalog.EndpointKey(ep) != c.epKey {
			delete(e.conns, key)
			gone = append(gone, c)
		}
	}
	e.mu.Unlock()
	for _, c := range gone {
		go closeLink(c)
	}
}

func closeLink(c *link) error {
	<-c.ready
	if c.up == nil {
		return nil
	}
	return c.up.Close()
}

// connect returns the live connection to a server, dialling it once for
// every concurrent caller. The dial does not belong to the caller that
// started it: a caller that gives up leaves it running for the others,
// bounded by the connect timeout and by Close.
func (e *Engine) connect(ctx context.Context, srv *catalog.ServerSurface) (*link, error) {
	key := manifests.CanonicalID(srv.ID)
	e.mu.Lock()
	c, ok := e.conns[key]
	if ok && c.dead() {
		// The server exited or the stream broke since the last use: start
		// over rather than fail a request that was never sent.
		delete(e.conns, key)
		go closeLink(c)
		ok = false
	}
	if !ok {
		ep, found := e.endpoints[key]
		c = &link{ready: make(chan struct{})}
		if found {
			c.epKey = catalog.EndpointKey(ep)
		}
		e.conns[key] = c
		e.mu.Unlock()
		go e.dial(key, srv.ID, ep, found, c)
	} else {
		e.mu.Unlock()
	}
	select {
	case <-c.ready:
	default:
		done := notifyConnecting(ctx, srv.ID)
		select {
		case <-c.ready:
			done()
		case <-ctx.Done():
			done()
			return nil, &upstream.UnavailableError{Server: srv.ID, Err: ctx.Err()}
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	c.touch()
	return c, nil
}

func (e *Engine) dial(key, server string, ep manifests.Endpoint, found bool, c *link) {
	defer close(c.ready)
	if !found {
		c.err = &NoEndpointError{Server: server}
	} else if ep, err := ep.Expand(e.lookup); err != nil {
		c.err = err
	} else {
		ep = upstream.DirectCommand(ep)
		c.up, c.err = upstream.Connect(e.life, ep, e.opts)
	}
	if c.err != nil {
		e.drop(key, c)
		return
	}
	c.up.OnToolsChanged(func() { e.refreshTools(server, c) })
}

func (c *link) dead() bool {
	select {
	case <-c.ready:
	default:
		return false
	}
	if c.up == nil {
		return false
	}
	select {
	case <-c.up.Done():
		return true
	default:
		return false
	}
}

// refreshTools re-lists a server's tools after it said they changed, so
// that list, search and the cache see the new list. A list that started
// after the notification answers for it: servers that announce changes
// right after initialize, or several at once, cost one list, not one each.
func (e *Engine) refreshTools(server string, c *link) {
	seen := c.changes.Add(1)
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	if c.tools == nil || c.listed >= seen {
		return // the first list is still to come, or a later one was made
	}
	ctx, cancel := context.WithTimeout(e.life, upstream.DefaultConnectTimeout)
	defer cancel()
	gen := c.changes.Load()
	tools, err := c.up.ListTools(ctx)
	if err != nil {
		if e.opts.Logger != nil {
			e.opts.Logger.Debug("re-listing tools failed", "server", server, "err", err)
		}
		return
	}
	c.tools, c.listed = tools, gen
	e.record(server, tools)
}

// drop forgets a connection so that the next use reconnects.
func (e *Engine) drop(key string, c *link) {
	e.mu.Lock()
	if e.conns[key] == c {
		delete(e.conns, key)
	}
	e.mu.Unlock()
}

func (e *Engine) server(id string) (*catalog.ServerSurface, *catalog.Surface, error) {
	s := e.Surface()
	srv, ok := s.Server(id)
	if !ok {
		return nil, s, &catalog.NotAvailableError{Server: id}
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
	if !connect && !e.connected(srv.ID) {
		if entry := e.cached(srv.ID); entry != nil && e.trusted(srv.ID, entry) {
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
		c.tools, c.listed = tools, gen
		e.record(srv.ID, tools)
	}
	return c.tools, false, nil
}

func (e *Engine) record(server string, tools []catalog.Tool) {
	key, ok := e.EndpointKey(server)
	if e.cache == nil || !ok {
		return
	}
	// A cache that cannot be written only costs a later reconnect.
	_ = e.cache.Store(key, &catalog.CacheEntry{Server: server, Fetched: time.Now().UTC(), Tools: tools})
}

// Tool returns one authorized tool. A tool outside the surface and a tool
// the server does not offer give the same NotAvailableError. A tool the
// cached list lacks is looked for again on a live connection: the server
// may have added it since.
func (e *Engine) Tool(ctx context.Context, server, tool string) (catalog.Tool, error) {
	if err := e.Surface().Check(server, tool); err != nil {
		return catalog.Tool{}, err
	}
	live := e.connected(server)
	tools, err := e.Tools(ctx, server)
	if err != nil {
		return catalog.Tool{}, err
	}
	if t, ok := find(tools, tool); ok {
		return t, nil
	}
	if !live {
		if tools, err = e.Bind(ctx, server); err != nil {
			return catalog.Tool{}, err
		}
		if t, ok := find(tools, tool); ok {
			return t, nil
		}
	}
	return catalog.Tool{}, &catalog.NotAvailableError{Server: server, Tool: tool}
}

func find(tools []catalog.Tool, name string) (catalog.Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return catalog.Tool{}, false
}

// Call calls an authorized tool. A call is never repeated: when the
// connection breaks under it, the caller gets the error and the next call
// reconnects.
func (e *Engine) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	s := e.Surface()
	if err := s.Check(server, tool); err != nil {
		return nil, err
	}
	srv, _ := s.Server(server)
	c, err := e.connect(ctx, srv)
	if err != nil {
		e.noteFailure(srv.ID, err)
		return nil, err
	}
	c.busy.Add(1)
	res, err := c.up.CallTool(ctx, tool, args)
	c.busy.Add(-1)
	c.touch()
	if err != nil {
		e.noteFailure(srv.ID, err)
		e.forgetBroken(srv.ID, c, err)
		return nil, err
	}
	return res, nil
}

func (e *Engine) forgetBroken(server string, c *link, err error) {
	var ue *upstream.UnavailableError
	if errors.As(err, &ue) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		e.drop(manifests.CanonicalID(server), c)
		_ = c.up.Close()
	}
}

// CloseIdle closes connections that have not been used for longer than
// idle and have nothing in flight; the next use reconnects. It returns how
// many it closed.
func (e *Engine) CloseIdle(idle time.Duration) int {
	cutoff := time.Now().Add(-idle).UnixNano()
	e.mu.Lock()
	var gone []*link
	for key, c := range e.conns {
		select {
		case <-c.ready:
		default:
			continue // still dialling
		}
		if c.busy.Load() == 0 && c.lastUsed.Load() < cutoff {
			delete(e.conns, key)
			gone = append(gone, c)
		}
	}
	e.mu.Unlock()
	for _, c := range gone {
		_ = closeLink(c)
	}
	return len(gone)
}

// ServerStatus is one connection as Status reports it.
type ServerStatus struct {
	ID        string    `json:"id"`
	Connected bool      `json:"connected"`
	Tools     int       `json:"tools"`
	PID       int       `json:"pid,omitempty"` // a stdio server's process
	LastUsed  time.Time `json:"lastUsed"`
}

// Status lists the engine's connections, sorted by server id.
func (e *Engine) Status() []ServerStatus {
	e.mu.Lock()
	conns := make(map[string]*link, len(e.conns))
	for k, c := range e.conns {
		conns[k] = c
	}
	e.mu.Unlock()
	out := []ServerStatus{}
	for key, c := range conns {
		st := ServerStatus{ID: key, LastUsed: time.Unix(0, c.lastUsed.Load()).UTC()}
		select {
		case <-c.ready:
			st.Connected = c.err == nil && !c.dead()
			if c.up != nil {
				st.PID = c.up.PID()
			}
		default:
		}
		c.toolsMu.Lock()
		st.Tools = len(c.tools)
		listed := c.tools != nil
		c.toolsMu.Unlock()
		if entry := e.cached(key); !listed && entry != nil {
			st.Tools = len(entry.Tools) // a call answered from the cache
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Close closes every connection and stops dials in progress.
func (e *Engine) Close() error {
	e.stop()
	e.mu.Lock()
	conns := e.conns
	e.conns = map[string]*link{}
	e.mu.Unlock()
	var errs []error
	for _, c := range conns {
		errs = append(errs, closeLink(c))
	}
	return errors.Join(errs...)
}

type connectingKey struct{}

// WithConnecting returns a context whose requests call f with a server's id
// when they have to wait for that server to be started or reached, and
// the function f returns once the wait is over.
func WithConnecting(ctx context.Context, f func(server string) (done func())) context.Context {
	return context.WithValue(ctx, connectingKey{}, f)
}

func notifyConnecting(ctx context.Context, server string) func() {
	if f, ok := ctx.Value(connectingKey{}).(func(string) func()); ok {
		return f(server)
	}
	return func() {}
}
