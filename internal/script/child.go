package script

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sync"
	"time"

	"github.com/mcpsh/mcp/catalog"
)

// RunIsolated runs one program as Run does, in a process of its own
// (StartChild) where that process can hold itself to the memory limit
// (Isolated), else in this one with Run.
func RunIsolated(ctx context.Context, h Host, name, src string, lim Limits, stderr io.Writer) (json.RawMessage, error) {
	return StartChild().Run(ctx, h, name, src, lim, stderr)
}

// Run runs one program as Run does, but in c's process, which has limited
// its own memory (limitMemory: with the operating system, or a watchdog on
// its resident memory) before the engine starts: a program that allocates
// past the limit in one step of the engine (s = s + s), which no sampling
// of the heap stops in time, ends that process
// rather than this one, and the run ends with the memory *LimitError.
// Everything the program reaches goes through h, in this process: tool
// calls, logins, progress, connections. Console output goes to stderr, in
// order with what h writes there. A nil c runs the program with Run. Run
// ends c's process; a Child runs one program.
func (c *Child) Run(ctx context.Context, h Host, name, src string, lim Limits, stderr io.Writer) (json.RawMessage, error) {
	if c == nil {
		return Run(ctx, h, name, src, lim, stderr)
	}
	defer c.Close()
	if c.err != nil {
		return nil, &EngineError{Msg: "could not start: " + c.err.Error()}
	}
	lim = lim.withDefaults()
	c.capMemory(lim.MaxMemory)
	if stderr == nil {
		stderr = io.Discard
	}
	p := &parentRun{c: c, h: h, stderr: stderr, start: time.Now(), lim: lim, errs: map[int64]error{},
		calls: map[int64]context.CancelFunc{}, done: make(chan *childDone, 1), eof: make(chan struct{})}
	p.maxRead = maxMessage + max(lim.MaxOutput, 0)
	if lim.MaxOutput < 0 {
		p.maxRead = math.MaxInt
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	defer p.cancel()
	defer p.stop()
	p.enc = json.NewEncoder(c.to)
	down := map[string]wireErr{}
	tools := h.Tools()
	for srv := range tools {
		if err := h.Unavailable(srv); err != nil {
			down[srv] = p.keep(err)
		}
	}
	if err := p.send(toChild{Start: &childStart{Name: name, Src: src, Limits: childLimits(lim), Tools: tools, Down: down}}); err != nil {
		return nil, c.lost(lim, nil)
	}
	go p.read(c.from)
	select {
	case d := <-p.done:
		return p.outcome(ctx, d)
	case <-p.eof:
		return nil, c.lost(lim, p.readErr)
	case <-ctx.Done():
	}
	// The program is told to stop; it stops at its next instruction, and
	// Run in it gives up on a stuck one after abandonGrace.
	_ = p.send(toChild{Cancel: true})
	grace := time.NewTimer(abandonGrace + time.Second)
	defer grace.Stop()
	select {
	case d := <-p.done:
		return p.outcome(ctx, d)
	case <-p.eof:
		return nil, c.lost(lim, p.readErr)
	case <-grace.C:
		return nil, ctxFailure(ctx, p.start, lim.Timeout)
	}
}

// parentRun serves one child's Host requests.
type parentRun struct {
	c      *Child
	h      Host
	stderr io.Writer
	start  time.Time
	lim    Limits
	ctx    context.Context // ends with the run: requests in flight are cancelled
	cancel context.CancelFunc
	wg     sync.WaitGroup

	wmu sync.Mutex
	enc *json.Encoder

	mu      sync.Mutex
	errs    map[int64]error // the errors the child was told of, by reference
	nextRef int64
	calls   map[int64]context.CancelFunc
	closed  bool // no more requests are served

	maxRead int   // the most one message from the child may hold
	readErr error // why reading stopped, once eof is closed
	done    chan *childDone
	eof     chan struct{}
}

// maxKept bounds the errors a run keeps for the child to name; past it an
// error that ends the run is known by its message alone.
const maxKept = 10000

// stop serves no more requests and waits for those in flight, which
// are cancelled.
func (p *parentRun) stop() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
}

func (p *parentRun) send(m toChild) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.enc.Encode(m)
}

// keep holds err for the child to name, and says what the child is told.
func (p *parentRun) keep(err error) wireErr {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.errs) >= maxKept {
		return wireErr{Msg: err.Error(), Name: errorName(err)}
	}
	p.nextRef++
	p.errs[p.nextRef] = err
	return wireErr{Msg: err.Error(), Name: errorName(err), Ref: p.nextRef}
}

// read serves the child's messages until it says how the run ended.
func (p *parentRun) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		var m fromChild
		if err := readMessage(br, p.maxRead, &m); err != nil {
			p.readErr = err
			close(p.eof)
			return
		}
		switch {
		case m.Done != nil:
			p.done <- m.Done
			return
		case m.Log != nil:
			_, _ = p.stderr.Write(m.Log)
		case m.Cancel != 0:
			p.mu.Lock()
			if cancel := p.calls[m.Cancel]; cancel != nil {
				cancel()
			}
			p.mu.Unlock()
		case m.Request != nil:
			p.serve(m.Request)
		}
	}
}

// serve answers one request, each on its own goroutine (Promise.all runs
// several calls at once) but NotAvailable, which only looks at the surface.
func (p *parentRun) serve(req *childRequest) {
	if req.Op == "notAvailable" {
		p.reply(&childReply{ID: req.ID, NotAvailable: p.h.NotAvailable(req.Server, req.Tool)})
		return
	}
	ctx, cancel := context.WithCancel(p.ctx)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		cancel()
		return
	}
	p.calls[req.ID] = cancel
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		var res *catalog.Result
		var tools []catalog.Tool
		var err error
		switch req.Op {
		case "call":
			res, err = p.h.Call(ctx, req.Server, req.Tool, req.Args)
		case "search":
			tools, err = p.h.Search(ctx, req.Query, min(max(req.Limit, 1), 1000))
		case "list":
			tools, err = p.h.List(ctx, req.Server)
		default:
			err = errors.New("unknown request " + req.Op)
		}
		p.mu.Lock()
		delete(p.calls, req.ID)
		p.mu.Unlock()
		cancel()
		p.reply(p.answer(req.ID, res, tools, err))
	}()
}

func (p *parentRun) answer(id int64, res *catalog.Result, tools []catalog.Tool, err error) *childReply {
	if err != nil {
		w := p.keep(err)
		return &childReply{ID: id, Err: &w}
	}
	return &childReply{ID: id, Result: toWireResult(res), Tools: tools}
}

// reply sends r; a child that is gone no longer needs it.
func (p *parentRun) reply(r *childReply) { _ = p.send(toChild{Reply: r}) }

// outcome is Run's return as the child reported it, with the errors it
// names put back.
func (p *parentRun) outcome(ctx context.Context, d *childDone) (json.RawMessage, error) {
	if d.Err == nil {
		if d.Value == nil {
			return json.RawMessage("null"), nil
		}
		return d.Value, nil
	}
	switch e := d.Err; {
	case e.Limit != nil:
		return nil, e.Limit
	case ctx.Err() != nil:
		// As Run ends when ctx does, whatever the program was about to
		// make of its calls failing with it.
		return nil, ctxFailure(ctx, p.start, p.lim.Timeout)
	case e.Program != nil:
		e.Program.Err = p.cause(e.Cause)
		return nil, e.Program
	case e.Context == "deadline":
		return nil, context.DeadlineExceeded
	case e.Context != "":
		return nil, context.Canceled
	}
	return nil, errors.New(d.Err.Msg)
}

func (p *parentRun) cause(c *causeErr) error {
	switch {
	case c == nil:
		return nil
	case c.Ref != 0:
		p.mu.Lock()
		defer p.mu.Unlock()
		if err := p.errs[c.Ref]; err != nil {
			return err
		}
		return errors.New(c.Msg)
	case c.NotAvailable != nil:
		return c.NotAvailable
	case c.Tool != nil:
		return &ToolError{Server: c.Tool.Server, Tool: c.Tool.Tool, Msg: c.Tool.Msg, Result: c.Tool.Result.result()}
	}
	return errors.New(c.Msg)
}
