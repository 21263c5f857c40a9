package mux

import (
	"context"
	"sync/atomic"

	"github.com/mcpsh/mcp/mux/upstream"
)

// Bounds on the log messages that wait for a client slow to read them:
// how many, and how many bytes of data.
const (
	logQueue      = 64
	logQueueBytes = 4 << 20
)

// logsTo is ctx with the call's hooks sending its server's log messages
// to write, as the log objects of the socket protocol. The server's
// connection is shared with other clients and hands messages over on its
// read goroutine, so they wait in a bounded queue that a goroutine of
// their own writes: a client that stops reading loses messages, and holds
// up nobody. flush writes those still queued and ends the goroutine; call
// it before writing the response.
func logsTo(ctx context.Context, write func(*response)) (_ context.Context, flush func()) {
	q := make(chan upstream.LogMessage, logQueue)
	var queued atomic.Int64 // bytes of data in q
	end, done := make(chan struct{}), make(chan struct{})
	send := func(m upstream.LogMessage) {
		queued.Add(-int64(len(m.Data)))
		write(&response{Log: &m})
	}
	go func() {
		defer close(done)
		for {
			select {
			case m := <-q:
				send(m)
				continue
			case <-end:
			}
			for {
				select {
				case m := <-q:
					send(m)
				default:
					return
				}
			}
		}
	}()
	h := *upstream.HooksOf(ctx)
	h.OnLog = func(m upstream.LogMessage) {
		n := int64(len(m.Data))
		if queued.Add(n) > logQueueBytes {
			queued.Add(-n)
			return
		}
		select {
		case q <- m:
		default:
			queued.Add(-n)
		}
	}
	return upstream.WithCallHooks(ctx, &h), func() { close(end); <-done }
}
