package script

import (
	"runtime/metrics"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// memGuard measures how far the Go heap has grown during a run. The heap
// is the process's, so this is a guard against runaway programs, not an
// account of one program's memory.
type memGuard struct {
	limit uint64

	mu     sync.Mutex
	base   uint64 // the lowest heap seen, so that garbage from before the run does not count once collected
	sample []metrics.Sample
}

func newMemGuard(limit uint64) *memGuard {
	g := &memGuard{limit: limit, sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		return nil
	}
	g.base = g.sample[0].Value.Uint64()
	return g
}

// growth is how far the heap is above its lowest point.
func (g *memGuard) growth() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	metrics.Read(g.sample)
	cur := g.sample[0].Value.Uint64()
	g.base = min(g.base, cur)
	return cur - g.base
}

// fits says whether the heap may grow by more bytes and stay in the limit.
func (g *memGuard) fits(more uint64) bool { return g.growth()+more <= g.limit }

// memorySampling is how often a run's heap is looked at.
const memorySampling = 5 * time.Millisecond

// watchMemory aborts the run once the heap grows past MaxMemory: sampled
// while the program runs, and checked before the builtins that allocate
// much in one go (guardAllocations), which run in Go and which the VM's
// interrupt cannot stop half way.
func (e *engine) watchMemory() {
	if e.lim.MaxMemory <= 0 {
		return
	}
	g := newMemGuard(uint64(e.lim.MaxMemory))
	if g == nil {
		return
	}
	e.guardAllocations(g)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		t := time.NewTicker(memorySampling)
		defer t.Stop()
		for {
			select {
			case <-e.ctx.Done():
				return
			case <-t.C:
				if g.growth() > g.limit {
					e.abort(e.memoryError())
					return
				}
			}
		}
	}()
}

func (e *engine) memoryError() *LimitError {
	return &LimitError{Kind: "memory", Limit: int64(e.lim.MaxMemory)}
}

// valueBytes is about what one element of a goja array holds.
const valueBytes = 16

// guardAllocations wraps the builtins that build a large value in one
// call, so that one asked for more than the limit leaves ends the run
// before it allocates: Array.prototype.fill (an array that is not yet
// dense grows element by element), String.prototype.repeat, padStart and
// padEnd.
func (e *engine) guardAllocations(g *memGuard) {
	vm := e.vm
	length := func(v goja.Value) uint64 {
		if goja.IsUndefined(v) || goja.IsNull(v) {
			return 0 // the builtin throws its TypeError
		}
		return uint64(max(0, v.ToObject(vm).Get("length").ToInteger()))
	}
	guard := func(proto, name string, need func(c goja.FunctionCall) uint64) {
		p, ok := vm.Get(proto).(*goja.Object)
		if !ok {
			return
		}
		pr, ok := p.Get("prototype").(*goja.Object)
		if !ok {
			return
		}
		orig, ok := goja.AssertFunction(pr.Get(name))
		if !ok {
			return
		}
		wrapped := vm.ToValue(func(c goja.FunctionCall) goja.Value {
			if !g.fits(need(c)) {
				e.abort(e.memoryError())
				return goja.Undefined()
			}
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
		_ = pr.DefineDataProperty(name, wrapped, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	arg := func(c goja.FunctionCall, i int) uint64 {
		return uint64(max(0, c.Argument(i).ToInteger()))
	}
	guard("Array", "fill", func(c goja.FunctionCall) uint64 { return length(c.This) * valueBytes })
	// A string takes a byte a character at least (two when not ASCII).
	guard("String", "repeat", func(c goja.FunctionCall) uint64 { return length(c.This) * arg(c, 0) })
	pad := func(c goja.FunctionCall) uint64 { return arg(c, 0) }
	guard("String", "padStart", pad)
	guard("String", "padEnd", pad)
}
