// Package idle is a context that ends after a silence: a time limit that
// each sign of life restarts. It is how --timeout bounds a call that
// reports progress: the longest silence, not the whole call.
package idle

import (
	"context"
	"sync"
	"time"
)

// WithTimeout returns a context that ends with context.DeadlineExceeded
// once limit has passed since it was made or touch was last called, or as
// parent ends. cancel releases it. The context has no Deadline: the
// moment moves.
func WithTimeout(parent context.Context, limit time.Duration) (ctx context.Context, touch func(), cancel context.CancelFunc) {
	c := &idleCtx{parent: parent, limit: limit, done: make(chan struct{})}
	// end waits for the set-up: the parent may have ended already.
	c.mu.Lock()
	c.timer = time.AfterFunc(limit, func() { c.end(context.DeadlineExceeded) })
	c.stopParent = context.AfterFunc(parent, func() { c.end(parent.Err()) })
	c.mu.Unlock()
	return c, c.touch, func() { c.end(context.Canceled) }
}

// idleCtx has a Done channel of its own, so that the contexts made from
// it are not joined to parent's and see its own Err.
type idleCtx struct {
	parent     context.Context
	limit      time.Duration
	done       chan struct{}
	timer      *time.Timer
	stopParent func() bool

	mu    sync.Mutex // guards err, holds, and the set-up of timer and stopParent
	err   error
	holds int // Holds not yet released: the clock is stopped
}

// ctxKey finds the idle context a context is made from.
type ctxKey struct{}

func (c *idleCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *idleCtx) Done() <-chan struct{}       { return c.done }

func (c *idleCtx) Value(key any) any {
	if key == (ctxKey{}) {
		return c
	}
	return c.parent.Value(key)
}

func (c *idleCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *idleCtx) touch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && c.holds == 0 {
		c.timer.Reset(c.limit)
	}
}

// Hold stops the clock of the idle context ctx is made from, until
// release is called, which starts a whole limit again: for a wait that is
// not the silence being timed, such as a person's. A ctx made from no
// idle context is not held.
func Hold(ctx context.Context) (release func()) {
	c, _ := ctx.Value(ctxKey{}).(*idleCtx)
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	c.holds++
	if c.err == nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.holds--
			if c.err == nil && c.holds == 0 {
				c.timer.Reset(c.limit)
			}
		})
	}
}

func (c *idleCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	c.stopParent()
	close(c.done)
}
