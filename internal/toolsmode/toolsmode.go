// Package toolsmode serves an agent's authorized surface as one MCP server:
// `mcp serve --agent NAME` for an agent whose mode is tools.
//
// Each authorized tool that is not deferred is registered under its exposed
// name (see Name) with the upstream's description and input schema exactly
// as the server listed it. Deferred tools start hidden; when there are any,
// the tool mcp_search searches them (and nothing else), loads the matches
// into this connection's active set and notifies tools/list_changed.
//
// Every call goes through one gate: a name that is not active (unknown,
// unauthorized, or deferred and not yet loaded) gets the same tool error,
// "NAME is not one of the tools this server lists", with the active names
// it most likely meant (refusals.go), so nothing about what exists beyond
// what is listed is learned. Active calls are proxied to the upstream
// through the mux engine, which checks the catalog gate again.
//
// What upstreams send for a person, their requests for input and their log
// messages, reaches the client through a Relay (relay.go, logging.go) when
// the client can take it.
//
// The protocol side is the official Go SDK's server
// (github.com/modelcontextprotocol/go-sdk/mcp).
package toolsmode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
	"github.com/mcpsh/mcp/search"
)

// Options tune a Server. The zero value works.
type Options struct {
	// Name and Version are the serverInfo sent to the client ("mcp", "dev"
	// when empty).
	Name, Version string
	// CallTimeout bounds each upstream call's silences: each progress
	// report restarts it. 0 means only the client's cancellation does.
	CallTimeout time.Duration
	// Warn receives one line for each problem that does not stop the server
	// (a server whose tools cannot be listed); nil discards them.
	Warn func(msg string)
	// ErrorLog receives the protocol layer's own warnings and errors (a
	// malformed message, a request before initialize), one line each; nil
	// discards them.
	ErrorLog io.Writer
	// Relay, if set, is the relay whose hooks the engine's connections
	// were made with (Relay.Upstream): while a client is served, their
	// requests for input go to it when it can answer them.
	Relay *Relay
}

// ModeError says the surface is not in tools mode.
type ModeError struct {
	Agent string
	Mode  catalog.Mode
}

func (e *ModeError) Error() string {
	who := "the package boundary"
	if e.Agent != "" {
		who = "agent " + e.Agent
	}
	mode := e.Mode
	if mode == "" {
		mode = catalog.ModeCLI
	}
	return fmt.Sprintf("%s is in %s mode; mcp serve is for tools mode", who, mode)
}

// Engine is what a Server needs of the upstream side; *mux.Engine has it.
// Every method puts its request through the surface's gate.
type Engine interface {
	Surface() *catalog.Surface
	// Tools lists a server's authorized tools, connecting if need be.
	Tools(ctx context.Context, server string) ([]catalog.Tool, error)
	// Cached returns a server's authorized tools as last recorded, without
	// connecting; ok is false when the server has not been seen.
	Cached(server string) (tools []catalog.Tool, ok bool)
	// Call calls an authorized tool with raw JSON arguments.
	Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error)
	// OnToolsChanged registers f to hear a server's authorized tools each
	// time the server says its list changed.
	OnToolsChanged(f func(server string, tools []catalog.Tool))
	// Instructions are what a server said about how to use it, when it has
	// been seen.
	Instructions(server string) (string, bool)
}

var _ Engine = (*mux.Engine)(nil)

// entry is one authorized tool of the catalog.
type entry struct {
	name     string // exposed name
	tool     catalog.Tool
	def      *mcp.Tool // the definition it is exposed with; never modified
	deferred bool
}

// Server is a tools-mode MCP server over one engine's surface.
type Server struct {
	eng   Engine
	opts  Options
	srv   *mcp.Server
	index *search.Index // deferred tools; nil when none

	// lists are the authorized tools of each server served, as last
	// listed; byName and byID are what is served of them. They, and index,
	// change when a server's list does (toolsChanged), under activating.
	lists  map[string][]catalog.Tool
	byName map[string]*entry // every served tool, by exposed name
	byID   map[string]*entry // the same, by "server.tool"

	// activating serializes mcp_search's loading and the changes of a
	// server's list, and guards lists, byName, byID and index.
	activating sync.Mutex
	// active holds the names the gate lets through. A name joins it only
	// once the SDK's registry holds its tool, so a call the gate passes
	// always finds a handler.
	activeMu sync.RWMutex
	active   map[string]bool

	// life ends when the server stops serving or is closed; it cancels the
	// upstream calls still running, so that stopping does not wait for them.
	life context.Context
	end  context.CancelFunc

	tasks  serverTasks    // the task relay (tasks.go)
	rounds rounds         // calls made in rounds for a client on 2026-07-28 (rounds.go)
	clocks callClocks     // the time limits of the calls in flight
	wg     sync.WaitGroup // listLater's goroutines, which Close waits for
}

// listRetries is how often listLater tries a server again: after 1, 2, 4,
// 8 and 16 s, half a minute in all, and then no more.
const listRetries = 5

// New loads the surface's catalog and builds the server. Servers are listed
// lazily where possible: a server's tool list comes from the engine's cache
// when it has one, and a server is connected only when it has none, when it
// is required (a required server is bound at launch), or at its first call.
// A server whose tools cannot be listed is left out with a warning, and
// listed again in the background (listLater).
func New(ctx context.Context, eng Engine, opts Options) (*Server, error) {
	surface := eng.Surface()
	if surface.Mode != catalog.ModeTools {
		return nil, &ModeError{Agent: surface.Agent, Mode: surface.Mode}
	}
	if opts.Name == "" {
		opts.Name = "mcp"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{eng: eng, opts: opts, active: map[string]bool{}}
	s.life, s.end = context.WithCancel(context.Background())
	s.lists = s.load(ctx)
	deferred := s.entries(func(catalog.Tool) bool { return true })
	if len(deferred) > 0 {
		ix, err := search.OpenMem()
		if err != nil {
			return nil, err
		}
		for id, ts := range deferred {
			if err := ix.Replace(id, search.ServerInfo{}, ts); err != nil {
				_ = ix.Close()
				return nil, err
			}
		}
		s.index = ix
	}
	var unlisted []string
	for _, srv := range surface.Servers {
		if _, listed := s.lists[srv.ID]; !listed {
			unlisted = append(unlisted, srv.ID)
		}
	}
	s.srv = s.build()
	eng.OnToolsChanged(s.toolsChanged)
	for _, id := range unlisted {
		s.wg.Add(1)
		go s.listLater(id)
	}
	return s, nil
}

// listLater lists again, in the background, a server whose tools could
// not be listed at start (it was slow to start, or down), a few times
// with a growing pause, and serves its tools once they come, as it would
// tools the server added later: the client hears tools/list_changed.
func (s *Server) listLater(server string) {
	defer s.wg.Done()
	pause := time.Second
	for range listRetries {
		select {
		case <-s.life.Done():
			return
		case <-time.After(pause):
		}
		pause *= 2
		ctx, cancel := context.WithTimeout(s.life, upstream.DefaultConnectTimeout)
		tools, err := s.eng.Tools(ctx, server)
		cancel()
		if err == nil {
			s.toolsChanged(server, tools)
			return
		}
	}
}

// entries builds byName and byID from lists, and returns the deferred
// tools by server. A tool that cannot be served is left out, with a
// warning when warnFor says so.
func (s *Server) entries(warnFor func(catalog.Tool) bool) map[string][]catalog.Tool {
	surface := s.eng.Surface()
	var tools []catalog.Tool
	for _, srv := range surface.Servers {
		tools = append(tools, s.lists[srv.ID]...)
	}
	s.byName, s.byID = map[string]*entry{}, map[string]*entry{}
	names, dropped := Assign(tools)
	for _, t := range dropped {
		if warnFor(t) {
			s.warn("%s is not served: its exposed name is taken", t.ID())
		}
	}
	deferred := map[string][]catalog.Tool{}
	checker := newChecker()
	for _, t := range tools {
		name, ok := names[t.ID()]
		if !ok {
			continue
		}
		def := toolDef(name, t)
		if err := checkDef(checker, def); err != nil {
			if warnFor(t) {
				s.warn("%s is not served: %s", t.ID(), err)
			}
			continue
		}
		e := &entry{name: name, tool: t, def: def, deferred: surface.Deferred(t.Server, t.Name)}
		s.byName[name], s.byID[t.ID()] = e, e
		if e.deferred {
			deferred[t.Server] = append(deferred[t.Server], t)
		}
	}
	s.expose()
	return deferred
}

// load returns the authorized tools of every server of the surface that
// could be listed. Servers that must be listed are listed in parallel.
func (s *Server) load(ctx context.Context) map[string][]catalog.Tool {
	servers := s.eng.Surface().Servers
	lists := make([][]catalog.Tool, len(servers))
	errs := make([]error, len(servers))
	var g errgroup.Group
	g.SetLimit(4)
	for i, srv := range servers {
		if tools, ok := s.eng.Cached(srv.ID); ok && !srv.Required {
			lists[i] = tools
			continue
		}
		g.Go(func() error {
			lists[i], errs[i] = s.eng.Tools(ctx, srv.ID)
			return nil
		})
	}
	_ = g.Wait()
	all := map[string][]catalog.Tool{}
	for i, srv := range servers {
		if errs[i] != nil {
			s.warn("the tools of %s are not served: %s", srv.ID, clip.Line(errs[i].Error()))
			continue
		}
		all[srv.ID] = lists[i]
	}
	return all
}

func (s *Server) warn(format string, args ...any) {
	if s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// build makes the SDK server with the eager tools, mcp_search when
// anything is deferred, and the gate in front of tools/call.
func (s *Server) build() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &mcp.ServerOptions{
		Logger:       protocolLogger(s.opts.ErrorLog),
		Instructions: s.instructions(),
		Capabilities: s.capabilities(),
	})
	for _, name := range s.sortedNames() {
		if e := s.byName[name]; !e.deferred {
			srv.AddTool(e.def, s.proxy(e))
			s.active[name] = true
		}
	}
	if s.index != nil {
		srv.AddTool(searchToolDef(), s.search)
		s.active[SearchTool] = true
	}
	srv.AddReceivingMiddleware(s.gate)
	return srv
}

func (s *Server) sortedNames() []string {
	names := make([]string, 0, len(s.byName))
	for n := range s.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Active returns the names callable now, sorted: the eager tools,
// mcp_search when anything is deferred, and the deferred tools loaded so
// far.
func (s *Server) Active() []string {
	s.activeMu.RLock()
	names := make([]string, 0, len(s.active))
	for n := range s.active {
		names = append(names, n)
	}
	s.activeMu.RUnlock()
	sort.Strings(names)
	return names
}

// Deferred returns how many tools start hidden behind mcp_search.
func (s *Server) Deferred() int {
	s.activating.Lock()
	defer s.activating.Unlock()
	n := 0
	for _, e := range s.byName {
		if e.deferred {
			n++
		}
	}
	return n
}

func (s *Server) isActive(name string) bool {
	s.activeMu.RLock()
	defer s.activeMu.RUnlock()
	return s.active[name]
}

func (s *Server) activate(names ...string) {
	s.activeMu.Lock()
	defer s.activeMu.Unlock()
	for _, n := range names {
		s.active[n] = true
	}
}

func (s *Server) deactivate(names ...string) {
	s.activeMu.Lock()
	defer s.activeMu.Unlock()
	for _, n := range names {
		delete(s.active, n)
	}
}

// ServeStdio serves one client over in and out (newline-delimited JSON-RPC)
// until in ends or ctx is cancelled. Cancelling ctx also cancels the
// upstream calls still running, whose answers are then not sent. The tools
// mcp_search loads are the Server's, not one connection's: serve one
// client per Server.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	guard := &batchGuard{r: in}
	tr := &mcp.IOTransport{Reader: io.NopCloser(guard), Writer: nopCloser{out}}
	ss, err := s.srv.Connect(ctx, s.taskTransport(tr, guard), nil)
	if err != nil {
		return err
	}
	if s.opts.Relay != nil {
		defer s.opts.Relay.attach(ss, attachment{ours: s.clientTask, rounds: &s.rounds, hold: s.clocks.hold})()
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Closing waits for the calls in flight: end them first.
		s.end()
		_ = ss.Close()
		<-done
	}
	if ctx.Err() != nil {
		return nil // stopped on purpose
	}
	if err != nil {
		// The SDK ends the connection at a message it cannot read.
		return fmt.Errorf("the connection to the client failed: %w", err)
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// protocolLogger writes the SDK's warnings and errors to w, one line each
// after "mcp: serve: ".
func protocolLogger(w io.Writer) *slog.Logger {
	if w == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(prefixWriter{w}, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// prefixWriter prefixes each write (a slog handler writes one record, one
// line, per call).
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, "mcp: serve: "+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Close cancels the upstream calls still running and releases the search
// index. It does not close the engine.
func (s *Server) Close() error {
	s.end()
	s.wg.Wait()
	s.activating.Lock()
	defer s.activating.Unlock()
	if s.index != nil {
		return s.index.Close()
	}
	return nil
}
