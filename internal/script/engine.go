package script

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// engine is one run: a VM that only its own goroutine touches, a job queue
// through which other goroutines (tool calls, timers) hand results back to
// it, and the goroutines it owns.
type engine struct {
	ctx    context.Context // cancelled when the run ends, times out or is aborted
	cancel context.CancelFunc
	parent context.Context
	start  time.Time
	wg     sync.WaitGroup
	jobs   chan func() error
	sem    chan struct{} // nil when concurrency is not limited
	stopAF func() bool   // stops the timeout's interrupt

	h      Host
	name   string
	lim    Limits
	stderr io.Writer
	vm     *goja.Runtime
	prog   *program

	mu       sync.Mutex
	abortErr error // the first limit that ended the run early

	// Touched only on the VM's goroutine.
	pendingCalls  int
	pendingTimers int
	calls         int
	servers       map[string]string   // id with "-" as "_" -> id as declared
	tools         map[string][]string // id as declared -> tool names
	errs          map[*goja.Object]error
	rejected      []*goja.Promise
	unhandled     map[*goja.Promise]bool
	timers        map[int64]*time.Timer
	nextTimer     int64
	jsonParse     goja.Callable
	jsonStringify goja.Callable
	errorCtor     *goja.Object
	evalErrorCtor *goja.Object
	freeze        goja.Callable
	jsonText      string // the first call that resolved to text holding JSON (noteJSONText)
}

func newEngine(ctx context.Context, h Host, name string, lim Limits, stderr io.Writer) *engine {
	e := &engine{
		parent:    ctx,
		start:     time.Now(),
		jobs:      make(chan func() error),
		h:         h,
		name:      name,
		lim:       lim,
		stderr:    stderr,
		vm:        goja.New(),
		errs:      map[*goja.Object]error{},
		unhandled: map[*goja.Promise]bool{},
		timers:    map[int64]*time.Timer{},
	}
	if lim.Timeout > 0 {
		e.ctx, e.cancel = context.WithTimeout(ctx, lim.Timeout)
	} else {
		e.ctx, e.cancel = context.WithCancel(ctx)
	}
	if lim.MaxConcurrent > 0 {
		e.sem = make(chan struct{}, lim.MaxConcurrent)
	}
	// Interrupt works even in a busy loop; while the VM waits for jobs,
	// the loop sees ctx.Done itself.
	e.stopAF = context.AfterFunc(e.ctx, func() { e.vm.Interrupt(context.Cause(e.ctx)) })
	e.watchMemory()
	return e
}

// close cancels what is in flight and waits for every goroutine the run
// started.
func (e *engine) close() {
	e.stopAF()
	e.cancel()
	for _, t := range e.timers {
		t.Stop()
	}
	e.wg.Wait()
}

// abort ends the run early with err, from any goroutine.
func (e *engine) abort(err error) {
	e.mu.Lock()
	if e.abortErr == nil {
		e.abortErr = err
	}
	e.mu.Unlock()
	e.vm.Interrupt(err)
	e.cancel()
}

// failure is why the run's context ended.
func (e *engine) failure() error {
	e.mu.Lock()
	err := e.abortErr
	e.mu.Unlock()
	if err != nil {
		return err
	}
	return ctxFailure(e.parent, e.start, e.lim.Timeout)
}

// ctxFailure is why a run that began at start ended with parent or its
// own time limit: parent's error when parent was cancelled, else the
// timeout, of the limit or of parent's deadline, whichever came first.
func ctxFailure(parent context.Context, start time.Time, limit time.Duration) error {
	if err := parent.Err(); errors.Is(err, context.Canceled) {
		return err
	}
	if d, ok := parent.Deadline(); ok && (limit <= 0 || d.Sub(start) < limit) {
		limit = d.Sub(start).Round(time.Millisecond)
	}
	return &LimitError{Kind: "timeout", Limit: int64(limit)}
}

// post hands a job to the VM's goroutine; it gives up when the run ends.
func (e *engine) post(job func() error) {
	select {
	case e.jobs <- job:
	case <-e.ctx.Done():
	}
}

// run runs the program and its job loop to the end.
func (e *engine) run(p *program) (json.RawMessage, error) {
	e.prog = p
	e.vm.SetMaxCallStackSize(maxCallStack)
	e.vm.SetPromiseRejectionTracker(func(pr *goja.Promise, op goja.PromiseRejectionOperation) {
		if op == goja.PromiseRejectionReject {
			e.rejected = append(e.rejected, pr)
			e.unhandled[pr] = true
		} else {
			delete(e.unhandled, pr)
		}
	})
	if err := e.setup(); err != nil {
		return nil, err
	}
	v, err := e.vm.RunProgram(p.prg)
	if err != nil {
		return nil, e.jsError(err)
	}
	top, ok := v.Export().(*goja.Promise)
	if !ok {
		return nil, &ProgramError{File: e.name, Msg: "internal error: the program did not start"}
	}
	for {
		if err := e.aborted(); err != nil {
			return nil, err
		}
		switch top.State() {
		case goja.PromiseStateRejected:
			return nil, e.uncaught(top.Result(), "")
		case goja.PromiseStateFulfilled:
			// Calls the program did not await still run to the end,
			// as they would in Node; pending timers are dropped.
			if e.pendingCalls == 0 {
				return e.finish(top)
			}
		default:
			if e.pendingCalls+e.pendingTimers == 0 {
				return nil, &ProgramError{File: e.name, Msg: "the program awaits a promise that nothing will settle"}
			}
		}
		select {
		case job := <-e.jobs:
			if err := job(); err != nil {
				return nil, e.jsError(err)
			}
		case <-e.ctx.Done():
			return nil, e.failure()
		}
	}
}

func (e *engine) aborted() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.abortErr
}

// finish reports a rejection nobody handled, else encodes the value.
func (e *engine) finish(top *goja.Promise) (json.RawMessage, error) {
	for _, pr := range e.rejected {
		if pr != top && e.unhandled[pr] {
			return nil, e.uncaught(pr.Result(), "unhandled promise rejection: ")
		}
	}
	s, err := e.jsonStringify(goja.Undefined(), top.Result())
	if err != nil {
		if _, ok := err.(*goja.Exception); ok {
			pe := e.uncaught(err.(*goja.Exception).Value(), "the program's value cannot be encoded as JSON: ")
			pe.Line, pe.Col = 0, 0
			return nil, pe
		}
		return nil, e.jsError(err)
	}
	out := "null"
	if !goja.IsUndefined(s) {
		out = s.String()
	}
	if e.lim.MaxOutput > 0 && len(out) > e.lim.MaxOutput {
		return nil, &LimitError{Kind: "output", Limit: int64(e.lim.MaxOutput)}
	}
	if !json.Valid([]byte(out)) {
		return nil, &ProgramError{File: e.name, Msg: "the program's value cannot be encoded as JSON"}
	}
	return json.RawMessage(out), nil
}

// jsError turns an error from the VM into the run's error.
func (e *engine) jsError(err error) error {
	switch x := err.(type) {
	case *goja.InterruptedError:
		if e.ctx.Err() != nil || e.aborted() != nil {
			return e.failure()
		}
		return &ProgramError{File: e.name, Msg: "interrupted"}
	case *goja.StackOverflowError:
		line, col := e.prog.framePos(x.Stack())
		return &ProgramError{File: e.name, Line: line, Col: col, Msg: "RangeError: Maximum call stack size exceeded"}
	case *goja.Exception:
		pe := e.uncaught(x.Value(), "")
		if pe.Line == 0 {
			pe.Line, pe.Col = e.prog.framePos(x.Stack())
		}
		return pe
	}
	return &ProgramError{File: e.name, Msg: err.Error()}
}

// uncaught describes a thrown value, at the place an Error was made.
func (e *engine) uncaught(v goja.Value, prefix string) (pe *ProgramError) {
	pe = &ProgramError{File: e.name}
	defer func() {
		// Reading a user object can run user getters; they may throw.
		if x := recover(); x != nil {
			pe.Msg = prefix + "uncaught exception"
		}
	}()
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Error" {
		pe.Msg = prefix + "uncaught exception: " + e.display(v)
		return pe
	}
	pe.Msg = prefix + errorText(obj)
	pe.Err = e.errs[obj]
	if obj.Get("name") != nil && obj.Get("name").String() == "TypeError" {
		pe.JSONText = e.jsonText
	}
	if st := obj.Get("stack"); st != nil {
		pe.Line, pe.Col = e.prog.stackPos(st.String())
	}
	return pe
}

// errorText is "name: message", as Error.prototype.toString gives it.
func errorText(obj *goja.Object) string {
	str := func(k, def string) string {
		if v := obj.Get(k); v != nil && !goja.IsUndefined(v) {
			return v.String()
		}
		return def
	}
	name, msg := str("name", "Error"), str("message", "")
	switch {
	case msg == "":
		return name
	case name == "":
		return msg
	}
	return name + ": " + msg
}

// display renders a value the way console.log does: strings raw, Errors
// as "name: message", other values as JSON when they have a JSON form.
func (e *engine) display(v goja.Value) (s string) {
	defer func() {
		if x := recover(); x != nil {
			s = "[unprintable]"
		}
	}()
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if _, ok := v.Export().(string); ok {
		return v.String()
	}
	if obj, ok := v.(*goja.Object); ok {
		if obj.ClassName() == "Error" {
			return errorText(obj)
		}
		if _, ok := goja.AssertFunction(obj); ok {
			return "[Function]"
		}
	}
	j, err := e.jsonStringify(goja.Undefined(), v)
	if err != nil || goja.IsUndefined(j) {
		return v.String()
	}
	return j.String()
}
