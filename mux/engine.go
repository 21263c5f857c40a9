package mux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/redact"
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

// Summary says the cause in a few words.
func (e *NoEndpointError) Summary() string {
	return "not configured: no manifest or local binding says where it lives"
}

// Engine serves one surface. It connects to servers lazily, shares one
// connection per server between concurrent callers, reconnects after a
// connection breaks, and puts every list and call through the catalog gate.
type Engine struct {
	lookup func(string) (string, bool)
	opts   upstream.Options
	cache  *catalog.Cache // optional
	// declared is what the engine's connections declare to servers
	// (opts.Declared), which its tool lists depend on.
	declared string

	life context.Context // cancelled by Close; bounds every dial
	stop context.CancelFunc

	searchMu sync.Mutex // one Search at a time

	mu      sync.Mutex
	surface *catalog.Surface
	// waitNote, in an engine of the CLI's own, hears a request wait for a
	// server to start (Open: the note of a server from an editor's file).
	waitNote  func(server string)
	keys      map[string]endpointKey        // by canonical id, computed once
	endpoints map[string]manifests.Endpoint // by canonical id
	conns     map[string]*link              // by canonical id
	failed    map[string]time.Time          // last time a server was unavailable
	changed   []func(server string, tools []catalog.Tool)

	tasks engineTasks // see tasks.go
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
	// lastList is tools, for a reader that must not wait for a list in
	// flight.
	lastList atomic.Pointer[[]catalog.Tool]
}

func (c *link) touch() { c.lastUsed.Store(time.Now().UnixNano()) }

// setTools records a list; the caller holds toolsMu.
func (c *link) setTools(tools []catalog.Tool, gen int64) {
	c.tools, c.listed = tools, gen
	c.lastList.Store(&tools)
}

// NewEngine returns an engine for a surface. endpoints are keyed by
// canonical id and still hold ${VAR} references, which lookup resolves at
// connect time.
//
// Its connections share opts.Secrets (a set of the engine's own when nil),
// which holds the secrets of every endpoint from the start (what their
// ${VAR} references expand to, and their secret-bearing fields), so that
// an error or a log line that quotes one says none, whichever server it
// comes from and whether or not that one has connected.
func NewEngine(s *catalog.Surface, endpoints map[string]manifests.Endpoint, lookup func(string) (string, bool), opts upstream.Options) *Engine {
	if opts.Secrets == nil {
		opts.Secrets = new(redact.Set)
	}
	life, stop := context.WithCancel(context.Background())
	e := &Engine{surface: s, endpoints: endpoints, lookup: lookup, opts: opts, conns: map[string]*link{},
		failed: map[string]time.Time{}, keys: map[string]endpointKey{}, life: life, stop: stop, declared: opts.Declared()}
	e.addSecrets(endpoints)
	return e
}

// addSecrets adds the secrets of endpoints, expanded as they are when they
// connect, to the engine's set.
func (e *Engine) addSecrets(endpoints map[string]manifests.Endpoint) {
	for _, ep := range endpoints {
		_, _ = ep.ExpandSecrets(e.lookup, e.opts.Secrets)
	}
}

// NewEngineFor is the engine for a configuration, with this process's
// environment and the user's catalog cache.
func NewEngineFor(cfg *Config, opts upstream.Options) *Engine {
	eng := NewEngine(cfg.Surface, cfg.Endpoints, os.LookupEnv, opts)
	// The catalog cache is an optimisation: without one, search connects.
	if dir, err := catalog.DefaultCacheDir(); err == nil {
		if c, err := catalog.OpenCache(dir); err == nil {
			eng.SetCache(c)
		}
	}
	return eng
}

// SetCache makes the engine record every tool list it fetches, and lets
// Cached answer from what was recorded.
// It also remembers there the protocol revision of each endpoint that
// does not speak the one tried first.
func (e *Engine) SetCache(c *catalog.Cache) {
	e.cache = c
	if e.opts.Revisions == nil {
		e.opts.Revisions = c
	}
}

// Surface is the surface the engine serves.
func (e *Engine) Surface() *catalog.Surface {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.surface
}

// refusal is why a server's endpoint may not be started or reached (its
// directory is not trusted), or nil.
func (e *Engine) refusal(server string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.endpoints[manifests.CanonicalID(server)].Refusal()
}

// EndpointKey identifies a server's tool list as the engine's connections
// see it, computed once per definition: the endpoint as expanded, so that
// one definition whose variables differ (another token, another option)
// has tools of its own in the cache, and what the connections declare to
// the server (catalog.ListKey), which may list other tools for another
// declaration. The catalog cache and the search index are keyed by it;
// the key is a hash, so nothing secret is kept.
func (e *Engine) EndpointKey(server string) (string, bool) {
	id := manifests.CanonicalID(server)
	e.mu.Lock()
	k, seen := e.keys[id]
	ep, ok := e.endpoints[id]
	e.mu.Unlock()
	if seen || !ok {
		return k.key, k.ok
	}
	if ep, err := ep.Expand(e.lookup); err == nil {
		k = endpointKey{key: catalog.ListKey(catalog.EndpointKey(ep), e.declared), ok: true}
	}
	e.mu.Lock()
	e.keys[id] = k
	e.mu.Unlock()
	return k.key, k.ok
}

type endpointKey struct {
	key string
	ok  bool
}

// connected says whether a server has a live connection.
func (e *Engine) connected(server string) bool { return e.live(server) != nil }

// live is a server's connection when it is up, or nil.
func (e *Engine) live(server string) *link {
	e.mu.Lock()
	c, ok := e.conns[manifests.CanonicalID(server)]
	e.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-c.ready:
		if c.err == nil && !c.dead() {
			return c
		}
	default:
	}
	return nil
}

// Reconfigure replaces the surface and the endpoints, as after the
// configuration files changed. Connections to servers that left the surface,
// whose endpoint definition changed or that may not be reached any more
// (their directory is no longer trusted) are closed; the rest stay warm.
func (e *Engine) Reconfigure(s *catalog.Surface, endpoints map[string]manifests.Endpoint) {
	e.addSecrets(endpoints)
	e.mu.Lock()
	e.surface, e.endpoints = s, endpoints
	e.keys = map[string]endpointKey{}
	var gone []*link
	for key, c := range e.conns {
		ep, ok := endpoints[key]
		_, inSurface := s.Server(key)
		if !ok || !inSurface || catalog.EndpointKey(ep) != c.epKey || ep.Refusal() != nil {
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
		if err := ep.Refusal(); found && err != nil {
			e.mu.Unlock()
			return nil, err
		}
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
		if e.waitNote != nil {
			e.waitNote(srv.ID)
		}
		done := notifyConnecting(ctx, srv.ID)
		select {
		case <-c.ready:
			done()
		case <-ctx.Done():
			done()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, &upstream.UnavailableError{Server: srv.ID, Err: &upstream.StartingError{Timeout: true}}
			}
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
	} else if ep, err := ep.ExpandSecrets(e.lookup, e.opts.Secrets); err != nil {
		c.err = err
	} else if ep, err = upstream.DirectCommand(ep); err != nil {
		c.err = err
	} else {
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
	tools, ok := e.relist(server, c)
	if !ok {
		return
	}
	e.mu.Lock()
	watchers, surface := slices.Clone(e.changed), e.surface
	e.mu.Unlock()
	for _, f := range watchers {
		f(server, surface.Filter(server, tools))
	}
}

// relist lists a server's tools again after a change notification, unless
// a list that started after it answers for it already. A connection that
// has not listed yet (one made for a call, the list coming from the
// catalog cache) lists now: the cached list is out of date.
func (e *Engine) relist(server string, c *link) ([]catalog.Tool, bool) {
	seen := c.changes.Add(1)
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	if c.tools != nil && c.listed >= seen {
		return nil, false // a list that started after the notification answers for it
	}
	ctx, cancel := context.WithTimeout(e.life, upstream.DefaultConnectTimeout)
	defer cancel()
	gen := c.changes.Load()
	tools, err := c.up.ListTools(ctx)
	if err != nil {
		if e.opts.Logger != nil {
			e.opts.Logger.Debug("re-listing tools failed", "server", server, "err", err)
		}
		return nil, false
	}
	c.setTools(tools, gen)
	e.record(server, c.up, tools)
	return tools, true
}

// OnToolsChanged registers f to run after a server said its tool list
// changed and the engine listed it again: f gets the server and its
// authorized tools now. It runs on the goroutine that re-listed.
func (e *Engine) OnToolsChanged(f func(server string, tools []catalog.Tool)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.changed = append(e.changed, f)
}

// drop forgets a connection so that the next use reconnects.
func (e *Engine) drop(key string, c *link) {
	e.mu.Lock()
	if e.conns[key] == c {
		delete(e.conns, key)
	}
	e.mu.Unlock()
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
	ID        string `json:"id"`
	Connected bool   `json:"connected"`
	// Tools is how many tools the server lists, all of them; Authorized,
	// how many of those the surface authorizes (nil from a multiplexer
	// that does not say).
	Tools      int  `json:"tools"`
	Authorized *int `json:"authorized,omitempty"`
	PID        int  `json:"pid,omitempty"` // a stdio server's process
	// Protocol is the MCP revision the connection speaks, once connected.
	Protocol string    `json:"protocol,omitempty"`
	LastUsed time.Time `json:"lastUsed"`
}

// Status lists the engine's connections, sorted by server id.
func (e *Engine) Status() []ServerStatus {
	e.mu.Lock()
	conns := make(map[string]*link, len(e.conns))
	for k, c := range e.conns {
		conns[k] = c
	}
	surface := e.surface
	e.mu.Unlock()
	out := []ServerStatus{}
	for key, c := range conns {
		st := ServerStatus{ID: key, LastUsed: time.Unix(0, c.lastUsed.Load()).UTC()}
		select {
		case <-c.ready:
			st.Connected = c.err == nil && !c.dead()
			if c.up != nil {
				st.PID, st.Protocol = c.up.PID(), c.up.ProtocolVersion()
			}
		default:
		}
		c.toolsMu.Lock()
		tools := c.tools
		c.toolsMu.Unlock()
		if entry := e.cached(key); tools == nil && entry != nil {
			tools = entry.Tools // a call answered from the cache
		}
		authorized := len(surface.Filter(key, tools))
		st.Tools, st.Authorized = len(tools), &authorized
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
