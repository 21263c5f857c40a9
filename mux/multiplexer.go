package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/registry"
	"github.com/mcpsh/mcp/manifests"
)

// Endpoint is the expanded endpoint of a server of the surface; ok is false
// when the surface has no such server, and a server without one is a
// *NoEndpointError.
func (c *Config) Endpoint(server string) (ep manifests.Endpoint, ok bool, err error) {
	srv, ok := c.Surface.Server(server)
	if !ok {
		return ep, false, nil
	}
	ep, found := c.Endpoints[manifests.CanonicalID(srv.ID)]
	if !found {
		return ep, true, &NoEndpointError{Server: srv.ID}
	}
	ep, err = ep.Expand(os.LookupEnv)
	return ep, true, err
}

// Config is what a multiplexer serves, as read from the configuration files.
type Config struct {
	Surface   *catalog.Surface
	Endpoints map[string]manifests.Endpoint
	Warnings  []string
	// Watch lists files and directories whose changes trigger a reload.
	Watch []string
	// stamps are what a stat said of the trust store before the files
	// were read and of each file and directory of Watch after: a request
	// that finds one changed reloads first, so that an edit, or trusting
	// or forgetting a directory, counts from the next request on, not
	// after the watcher's debounce.
	stamps fileStamps
	// notes are what to say when a server from an editor's file starts
	// (startNotes).
	notes map[string]string
}

// Untrusted is the refusal of the first server of the surface whose
// endpoint may not be started (its directory is not trusted), or nil.
func (c *Config) Untrusted() error {
	for _, srv := range c.Surface.Servers {
		if err := c.Endpoints[manifests.CanonicalID(srv.ID)].Refusal(); err != nil {
			return err
		}
	}
	return nil
}

// fileStamp is what a stat said of one file or directory, to tell that it
// changed. The zero value was never taken and never changes.
type fileStamp struct {
	path string      // "": never taken
	fi   os.FileInfo // nil: missing
}

func stampFile(path string) fileStamp {
	fi, _ := os.Stat(path)
	return fileStamp{path: path, fi: fi}
}

func stampTrustStore() fileStamp {
	path, err := manifests.TrustStorePath()
	if err != nil {
		return fileStamp{}
	}
	return stampFile(path)
}

// changed says whether the file is not as it was stamped: another file
// (an atomic rewrite), another size or modification time, or there when it
// was missing or the other way round. It costs one stat.
func (s fileStamp) changed() bool {
	if s.path == "" {
		return false
	}
	now, _ := os.Stat(s.path)
	if now == nil || s.fi == nil {
		return (now == nil) != (s.fi == nil)
	}
	return !os.SameFile(now, s.fi) || !now.ModTime().Equal(s.fi.ModTime()) || now.Size() != s.fi.Size()
}

// fileStamps are the stamps of the files a configuration was read from.
type fileStamps []fileStamp

// stampFiles stamps each path.
func stampFiles(paths []string) fileStamps {
	out := make(fileStamps, 0, len(paths)+1)
	for _, p := range paths {
		out = append(out, stampFile(p))
	}
	return out
}

// changed says whether any of the files changed: a stat each.
func (ss fileStamps) changed() bool {
	for _, s := range ss {
		if s.changed() {
			return true
		}
	}
	return false
}

// Options configure a multiplexer.
type Options struct {
	// Load reads the configuration; it runs at start and again, debounced,
	// after anything in Config.Watch changes. A session's Load keeps the
	// surface it started with and re-reads only the endpoints.
	Load func() (*Config, error)
	// NewEngine builds the engine for the first configuration.
	NewEngine func(*Config) *Engine
	// Idle ends the multiplexer after no request for this long (0: never).
	Idle time.Duration
	// UpstreamIdle closes an upstream connection unused for this long (0: never).
	UpstreamIdle time.Duration
	// Alive, if set, is polled; when it says false the multiplexer ends
	// (a session whose state is gone).
	Alive func() bool
	// Logger receives the multiplexer's own log.
	Logger *slog.Logger
	// Label says what the multiplexer serves, for status, and Why, when
	// set, why it is a multiplexer of its own.
	Label, Why string
	// Session is the id of the session it serves, if any; every request of
	// the verbs must name it.
	Session string
	// Guest is the uid of the other user the session's multiplexer also
	// serves (the four verbs only), if any.
	Guest *int
	// Identity, outside a session, is the digest of the environment its
	// servers see (Target.Env), which names its socket: a request naming
	// another is answered Stale. IdentityOf says what it is for a
	// configuration as read now; a multiplexer whose configuration reads
	// other variables than it did is retired (no client names it any
	// more) and ends once its requests have.
	Identity   string
	IdentityOf func(*Config) string
	// ConnWarnings, if set, holds the warnings of the engine's connections,
	// passed on with the responses to requests that concern their server.
	ConnWarnings *ConnWarnings
}

// Status is what the status request answers.
type Status struct {
	Label    string         `json:"label"`
	Why      string         `json:"why,omitempty"`
	Session  string         `json:"session,omitempty"`
	PID      int            `json:"pid"`
	Started  time.Time      `json:"started"`
	Requests int64          `json:"requests"`
	Reloads  int64          `json:"reloads"`
	Servers  []ServerStatus `json:"servers"`
	// LastRequest is when the last request other than status ended (or
	// the multiplexer started).
	LastRequest time.Time `json:"lastRequest"`
}

// Multiplexer is a running multiplexer: one engine shared by every client of
// its socket.
type Multiplexer struct {
	opts    Options
	eng     *Engine
	log     *slog.Logger
	started time.Time

	mu       sync.Mutex
	cfg      *Config
	loadErr  error
	requests atomic.Int64
	reloads  atomic.Int64
	inFlight atomic.Int64
	lastReq  atomic.Int64
	// retired says the configuration now reads other variables than
	// the ones the multiplexer is named by.
	retired atomic.Bool

	stopOnce sync.Once
	stopped  chan struct{}
	// stopWhy is what stopped it, as StoppedError says it.
	stopWhy atomic.Pointer[string]

	// conns are the client connections open now: closed at once when the
	// multiplexer stops, so that no client holds up its end and none is
	// answered after it.
	conns registry.Set[*clientConn]
	// guestConns counts the guest's open connections, and guestReads
	// the guest's requests being read: both are bounded, so that the
	// guest cannot grow the multiplexer without end.
	guestConns atomic.Int64
	guestReads chan struct{}
	// guestBytes is the size of the guest's requests in flight.
	guestBytes atomic.Int64
	// refused logs refusals, at most one line per interval.
	refused *refusalLog
	// refusing holds a slot for each refused client being told why.
	refusing chan struct{}
}

// Bounds on what a session's guest holds at once: connections, and
// requests being read (each up to MaxRequest).
const (
	maxGuestConns = 32
	maxGuestReads = 4
	// maxGuestBytes bounds the requests of the guest in flight together:
	// four requests of MaxRequest, or thousands of any real call's.
	maxGuestBytes = 4 * MaxRequest
)

// guestWriteTimeout bounds how long an answer waits for the guest to read
// it; a guest that does not read loses it, and its call ends. (A variable
// for the tests.)
var guestWriteTimeout = 10 * time.Second

// New loads the configuration and builds the engine. A configuration
// that cannot be loaded at start is an error; later, a failed reload keeps
// the engine as it was and answers every request with the error until the
// files are fixed.
func New(opts Options) (*Multiplexer, error) {
	cfg, err := opts.Load()
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Multiplexer{opts: opts, cfg: cfg, log: opts.Logger, started: time.Now(), stopped: make(chan struct{}),
		guestReads: make(chan struct{}, maxGuestReads), refusing: make(chan struct{}, maxRefusing)}
	d.refused = &refusalLog{log: opts.Logger, interval: refusalInterval, now: time.Now}
	d.eng = opts.NewEngine(cfg)
	d.lastReq.Store(time.Now().UnixNano())
	d.checkIdentity(cfg)
	return d, nil
}

// Serve accepts clients on ln until ctx ends, a stop request arrives, the
// multiplexer has been idle for Options.Idle, or Alive says false.
// It closes the engine, and with it every upstream server, before it
// returns.
func (d *Multiplexer) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	told := make(chan struct{}) // every client is told why
	go func() {
		defer close(told)
		select {
		case <-ctx.Done():
		case <-d.stopped:
		}
		ln.Close()
		why := stopBySignal
		if p := d.stopWhy.Load(); p != nil {
			why = *p
		}
		deadline := time.Now().Add(time.Second)
		for _, c := range d.conns.All() {
			c.stop(why, deadline)
		}
	}()
	go d.watch(ctx, watchFiles, nil)
	go d.housekeep(ctx)

	var wg sync.WaitGroup
	for {
		conn, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			break
		}
		guest, uid, ok := d.admit(conn)
		if !ok {
			d.refuse(conn, uid, uid >= 0)
			continue
		}
		cc := newClientConn(conn)
		release, ok := d.track(cc, guest)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			d.handle(ctx, cc, guest)
		}()
	}
	// The clients are told why before their calls are cancelled: a call
	// cancelled first would answer with its cancellation.
	if ctx.Err() != nil {
		d.stopFor(stopBySignal)
	} else {
		d.stopFor(stopListener)
	}
	<-told
	cancel()
	// Calls end with their requests; one stuck beneath them (a write to a
	// server that reads no more) ends when its server is closed, which
	// waits no longer than stopGrace for them.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopGrace):
		d.log.Warn("requests still in flight at stop; closing their servers under them")
	}
	err := d.eng.Close()
	select {
	case <-done:
	case <-time.After(stopGrace):
		d.log.Warn("requests still in flight after their servers closed")
	}
	return err
}

// stopGrace is how long a stopping multiplexer waits for its requests to
// end, before and after it closes their servers.
const stopGrace = 2 * time.Second

// admit says whether the client on conn may talk to the multiplexer: the
// user it runs as, or the session's guest, whom the kernel names. guest
// says it is the guest; uid is the client's user (-1: the kernel did not
// say).
func (d *Multiplexer) admit(conn net.Conn) (guest bool, uid int, ok bool) {
	uid, known := peerUID(conn)
	switch {
	case !known:
		return false, -1, false
	case uid == os.Getuid():
		return false, uid, true
	case d.opts.Guest != nil && uid == *d.opts.Guest:
		return true, uid, true
	}
	return false, uid, false
}

// track keeps conn among the open connections until release. A guest over
// its bound of connections is answered so, and its connection closed.
func (d *Multiplexer) track(conn *clientConn, guest bool) (release func(), ok bool) {
	if guest && d.guestConns.Add(1) > maxGuestConns {
		d.guestConns.Add(-1)
		d.refused.note("refused a connection of the guest", "reason", "too many at once")
		// Answered off the accept loop, which a guest that does not read
		// must not hold up.
		go func() {
			defer conn.Close()
			_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
			_ = json.NewEncoder(conn).Encode(&response{Error: encodeError(&BadRequestError{
				Reason: fmt.Sprintf("the session's guest has %d connections open already", maxGuestConns)})})
		}()
		return nil, false
	}
	remove := d.conns.Add(conn)
	select {
	case <-d.stopped:
		// Stopped between Accept and here: told like the others.
		why := stopBySignal
		if p := d.stopWhy.Load(); p != nil {
			why = *p
		}
		conn.stop(why, time.Now().Add(time.Second))
	default:
	}
	return func() {
		remove()
		if guest {
			d.guestConns.Add(-1)
		}
	}, true
}

// Stop makes Serve return.
func (d *Multiplexer) Stop() { d.stopFor("it was stopped") }

// stopFor makes Serve return, and the requests in flight say why.
func (d *Multiplexer) stopFor(why string) {
	d.stopWhy.CompareAndSwap(nil, &why)
	d.stopOnce.Do(func() { close(d.stopped) })
}

func (d *Multiplexer) housekeep(ctx context.Context) {
	tick := 2 * time.Second
	if d.opts.Idle > 0 && d.opts.Idle/4 < tick {
		tick = max(d.opts.Idle/4, 50*time.Millisecond)
	}
	if d.opts.UpstreamIdle > 0 && d.opts.UpstreamIdle/4 < tick {
		tick = max(d.opts.UpstreamIdle/4, 50*time.Millisecond)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.stopped:
			return
		case <-t.C:
		}
		if d.opts.UpstreamIdle > 0 {
			if n := d.eng.CloseIdle(d.opts.UpstreamIdle); n > 0 {
				d.log.Info("closed idle upstream connections", "count", n)
			}
		}
		idleFor := time.Since(time.Unix(0, d.lastReq.Load()))
		if d.opts.Idle > 0 && d.inFlight.Load() == 0 && idleFor > d.opts.Idle {
			d.log.Info("idle, exiting", "idle", idleFor.Round(time.Second).String())
			d.stopFor(stopIdle)
			return
		}
		if d.retired.Load() && d.inFlight.Load() == 0 {
			d.log.Info("retired, and no request in flight: exiting")
			d.stopFor(stopRetired)
			return
		}
		if d.opts.Alive != nil && !d.opts.Alive() {
			d.log.Info("session ended, exiting")
			d.stopFor(stopEnded)
			return
		}
	}
}

func (d *Multiplexer) reload() *Config {
	cfg, err := d.opts.Load()
	d.reloads.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loadErr = err
	if err != nil {
		d.log.Warn("configuration not reloaded", "err", err)
		return nil
	}
	d.cfg = cfg
	d.eng.Reconfigure(cfg.Surface, cfg.Endpoints)
	d.log.Info("configuration reloaded")
	d.checkIdentity(cfg)
	return cfg
}

// checkIdentity retires the multiplexer when cfg makes its servers see
// another environment than the one its socket is named by: a client of
// the same environment now computes another name, and starts another
// multiplexer, while this one finishes what it was asked.
func (d *Multiplexer) checkIdentity(cfg *Config) {
	if d.opts.IdentityOf == nil {
		return
	}
	now := d.opts.IdentityOf(cfg) != d.opts.Identity
	if now && !d.retired.Load() {
		d.log.Info("the configuration reads other variables now: retired, exiting once no request is in flight")
	}
	d.retired.Store(now)
}
