package mux

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/search"
)

// How the multiplexer answers a client: one request read from its
// connection, refused or served, and the response written back.

// handle serves one client connection: one request, then the response.
func (d *Multiplexer) handle(ctx context.Context, conn *clientConn, guest bool) {
	defer conn.Close()
	d.inFlight.Add(1)
	var req *request
	defer func() {
		// Asking how long it has been idle does not end the idleness.
		if req == nil || req.Op != "status" {
			d.lastReq.Store(time.Now().UnixNano())
		}
		d.inFlight.Add(-1)
	}()
	d.requests.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	send := func(r *response, last bool) {
		var deadline time.Time
		if guest {
			deadline = time.Now().Add(guestWriteTimeout)
		}
		if !conn.write(r, last, deadline) {
			cancel() // nobody reads what the call would give
		}
	}
	write := func(r *response) { send(r, false) }
	req, release, err := d.read(ctx, conn, guest)
	if err != nil {
		var bad *BadRequestError
		if errors.As(err, &bad) {
			d.refused.note("refused a request", "guest", guest, "reason", bad.Reason)
			send(&response{Error: encodeError(err)}, true)
		}
		return
	}
	conn.read(req)
	defer release()
	// The client sends nothing after its request: a read that returns
	// means it hung up (Ctrl-C, --timeout), and the request is cancelled
	// upstream.
	go func() {
		var b [1]byte
		_, _ = conn.Read(b[:])
		cancel()
	}()
	ctx = WithConnecting(ctx, func(server string) func() {
		write(&response{Connecting: server})
		return func() { write(&response{Connected: server}) }
	})
	flush := func() {}
	if req.Logs {
		ctx, flush = logsTo(ctx, write)
	}
	ctx = withProgressOf(ctx, req, write)
	res := d.serve(ctx, req, guest)
	flush()
	if guest {
		res = guestView(res)
	}
	send(res, true)
	if req.Op == "stop" && res.Error == nil {
		d.stopFor(d.stopCommand())
	}
}

// read reads the request on conn. A guest's is read in one of its few
// slots for reading, and once read counts against the bytes the guest's
// requests in flight may hold, until release. When those are so near the
// bound that a request of MaxRequest could pass it, a request is refused
// before it is read, and again when it would pass it once read.
func (d *Multiplexer) read(ctx context.Context, conn net.Conn, guest bool) (req *request, release func(), err error) {
	full := func() error {
		return &BadRequestError{Reason: fmt.Sprintf("the session's guest has %s of requests in flight already", mib(maxGuestBytes))}
	}
	if guest {
		if d.guestBytes.Load()+MaxRequest > maxGuestBytes {
			return nil, nil, full()
		}
		select {
		case d.guestReads <- struct{}{}:
			defer func() { <-d.guestReads }()
		case <-d.stopped:
			return nil, nil, errStopping
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if d.guestBytes.Load()+MaxRequest > maxGuestBytes {
			return nil, nil, full() // filled while this one waited
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	req, size, err := readRequest(conn)
	if err != nil {
		return nil, nil, err
	}
	_ = conn.SetReadDeadline(time.Time{})
	if !guest {
		return req, func() {}, nil
	}
	if d.guestBytes.Add(int64(size)) > maxGuestBytes {
		d.guestBytes.Add(-int64(size))
		return nil, nil, full()
	}
	return req, func() { d.guestBytes.Add(-int64(size)) }, nil
}

var errStopping = errors.New("the multiplexer is stopping")

// stopCommand is the command that stops this multiplexer.
func (d *Multiplexer) stopCommand() string {
	if d.opts.Session != "" {
		return stopBySession
	}
	return stopByCommand
}

// verbOps are the requests of the four verbs: all a session's guest may
// send, and each must name the session the multiplexer serves.
var verbOps = map[string]bool{"catalog": true, "tools": true, "tool": true, "call": true, "invoke": true, "search": true, "bind": true}

func (d *Multiplexer) serve(ctx context.Context, req *request, guest bool) *response {
	d.mu.Lock()
	cfg, loadErr := d.cfg, d.loadErr
	d.mu.Unlock()
	switch {
	case guest && (!verbOps[req.Op] || req.Op == "bind"):
		return &response{Error: encodeError(fmt.Errorf("%s is for the user who started the session", req.Op))}
	case verbOps[req.Op] && req.Session != d.opts.Session:
		return &response{Error: encodeError(&WrongSessionError{Session: req.Session})}
	case d.opts.Session != "" && req.Env != "":
		// A session's servers run in the environment it started in;
		// no client's environment is compared with it or chosen.
		return &response{Error: encodeError(&BadRequestError{Reason: "a session's multiplexer takes no environment"})}
	case req.Op == "status":
		return &response{Status: d.status()}
	case req.Op == "stop":
		return &response{} // stopped once this is written
	case req.V != wireVersion:
		return &response{Version: wireVersion}
	case req.Env != "" && req.Env != d.opts.Identity:
		return &response{Stale: true}
	case loadErr != nil || cfg.stamps.changed():
		// A broken edit is reported until it is fixed, and any edit (a
		// fix, a change of trust) counts at once, not only after the
		// watcher's debounce.
		fixed := d.reload()
		if fixed == nil {
			d.mu.Lock()
			loadErr = d.loadErr
			d.mu.Unlock()
			return &response{Error: encodeError(loadErr)}
		}
		cfg = fixed
	}
	r := d.answer(ctx, req)
	r.Warnings = cfg.Warnings
	switch req.Op {
	case "catalog", "tools", "bind", "search":
		// What a listing left out is said where tools are listed.
		r.Warnings = append(slices.Clone(cfg.Warnings), d.opts.ConnWarnings.For(req.Server, cfg.Surface, !guest)...)
	}
	return r
}

// answer serves one request of the verbs.
func (d *Multiplexer) answer(ctx context.Context, req *request) *response {
	fail := func(err error) *response { return &response{Error: encodeError(err)} }
	switch req.Op {
	case "catalog":
		c, err := d.eng.Catalog(ctx, req.Listing)
		if err != nil {
			return fail(err)
		}
		w := &wireCatalog{Surface: newWireSurface(c.Surface), Servers: []wireServer{}}
		for _, s := range c.Servers {
			ws := wireServer{ID: s.ID, Tools: s.Tools, Count: s.Count, Error: encodeError(s.Err), Protocol: s.Protocol}
			if req.Listing == Counted {
				ws.Tools = nil
			}
			w.Servers = append(w.Servers, ws)
		}
		return &response{Catalog: w}
	case "tools", "bind":
		list := d.eng.Tools
		if req.Op == "bind" {
			list = d.eng.Bind
		}
		tools, err := list(ctx, req.Server)
		if err != nil {
			return fail(err)
		}
		return &response{Tools: tools}
	case "tool":
		t, err := d.eng.Tool(ctx, req.Server, req.Tool)
		if err != nil {
			return fail(err)
		}
		return &response{Tool: &t}
	case "call":
		res, err := d.eng.Call(ctx, req.Server, req.Tool, req.Args)
		if err != nil {
			return fail(err)
		}
		return &response{Result: res.Raw}
	case "invoke":
		return d.invoke(ctx, req)
	case "search":
		return d.search(ctx, req)
	}
	return fail(errors.New("unknown request " + req.Op))
}

func (d *Multiplexer) invoke(ctx context.Context, req *request) *response {
	if req.Input == nil {
		req.Input = &wireArgs{}
	}
	in := Args(*req.Input)
	out, err := d.eng.Invoke(ctx, req.Server, req.Tool, in)
	if err != nil {
		return &response{Error: encodeError(err)}
	}
	return &response{Tool: &catalog.Tool{Server: out.Server, Name: out.Tool}, Result: out.Result.Raw}
}

func (d *Multiplexer) search(ctx context.Context, req *request) *response {
	// The index is kept where this multiplexer keeps it: no client says.
	ans, err := d.eng.Search(ctx, search.Request{Text: req.Search.Text, Limit: req.Search.Limit, Server: req.Search.Server})
	if err != nil {
		return &response{Error: encodeError(err)}
	}
	r := &response{Tools: ans.Tools}
	for _, s := range ans.Skipped {
		r.Skipped = append(r.Skipped, wireServer{ID: s.Server, Error: encodeError(s.Err)})
	}
	return r
}

func (d *Multiplexer) status() *Status {
	return &Status{
		Label:    d.opts.Label,
		Why:      d.opts.Why,
		Session:  d.opts.Session,
		PID:      os.Getpid(),
		Started:  d.started.UTC(),
		Requests: d.requests.Load(),
		Reloads:  d.reloads.Load(),
		Servers:  d.eng.Status(),

		LastRequest: time.Unix(0, d.lastReq.Load()).UTC(),
	}
}
