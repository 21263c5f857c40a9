package upstream

import (
	"context"
	"math"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// progressBuffer is how many reports of one call may wait for its
// OnProgress; more are dropped (the next one says as much).
const progressBuffer = 32

// progressSink hands one call's progress reports to its OnProgress in
// order, on a goroutine of its own: the server's notifications/progress,
// which arrive on the transport's read goroutine that must not wait for
// the caller, and the status of the task the call became, which its
// follower reports. One stream, numbered by one owner (progressOrder),
// so that the caller sees the progress of each report above the last.
type progressSink struct {
	reports chan sinkReport
	done    chan struct{}
	end     func() // stops routing the token's reports to the sink
	once    sync.Once
}

// sinkReport is a report on its way to OnProgress.
type sinkReport struct {
	Progress
	status bool // a task's status, whose progress the sink gives
}

// ownMeta are the _meta keys a connection speaks for itself, so a
// caller's are not sent: its progress token, and what a client of
// 2026-07-28 says of itself on every request (its revision, capabilities
// and name describe its own exchange, not this connection's).
var ownMeta = map[string]bool{
	"progressToken": true,
	"io.modelcontextprotocol/protocolVersion":    true,
	"io.modelcontextprotocol/clientCapabilities": true,
	"io.modelcontextprotocol/clientInfo":         true,
}

// callMeta is the _meta of a tools/call under h: the caller's keys, with
// the connection's own progress token when h asks for progress (a
// caller's token is replaced), and nil when there is nothing to send.
// sink, nil when h does not ask for progress, routes that token's reports
// to h.OnProgress; the caller defers its stop.
func (u *conn) callMeta(h *CallHooks) (meta map[string]any, sink *progressSink) {
	meta = map[string]any{}
	for k, v := range h.Meta {
		if !ownMeta[k] {
			meta[k] = v
		}
	}
	if h.OnProgress != nil {
		token := "mcp-progress-" + strconv.FormatInt(u.nextID.Add(1), 10)
		meta["progressToken"] = token
		sink = u.watchProgress(token, h.OnProgress)
	}
	if len(meta) == 0 {
		meta = nil
	}
	return meta, sink
}

func (u *conn) watchProgress(token string, on func(Progress)) *progressSink {
	s := &progressSink{reports: make(chan sinkReport, progressBuffer), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		var order progressOrder
		for r := range s.reports {
			on(order.next(r))
		}
	}()
	u.mu.Lock()
	if u.progress == nil {
		u.progress = map[string]*progressSink{}
	}
	u.progress[token] = s
	u.mu.Unlock()
	s.end = func() {
		u.mu.Lock()
		delete(u.progress, token)
		u.mu.Unlock()
	}
	return s
}

// status reports a task's status through the sink, after the reports
// taken in before it, waiting for room rather than dropping it. Only the
// sink's owner calls it, before stop.
func (s *progressSink) status(ctx context.Context, p Progress) {
	if s == nil {
		return
	}
	select {
	case s.reports <- sinkReport{Progress: p, status: true}:
	case <-ctx.Done():
	}
}

// stop ends the sink and returns once every report taken in has been
// handed over.
func (s *progressSink) stop() {
	if s == nil {
		return
	}
	s.release()
	<-s.done
}

// release ends the sink without waiting: the reports taken in are still
// handed over, on its goroutine. It is safe to call more than once.
func (s *progressSink) release() {
	s.once.Do(func() {
		s.end()
		close(s.reports)
	})
}

// progressOrder numbers the reports of one call so that each one's
// progress is above the last (the spec requires it of the values a
// client sees). A server's report keeps its own unless it is not above
// the last; a task's status, which has none, takes the next.
type progressOrder struct {
	last, total float64
	sent        bool
}

// maxProgress bounds a server's progress: far above any count, it leaves
// more values above it than a call can number.
const maxProgress = math.MaxFloat64 / 2

func (o *progressOrder) next(r sinkReport) Progress {
	p := r.Progress
	if r.status {
		p.Total = o.total
	}
	p.Progress = min(p.Progress, maxProgress)
	if r.status || o.sent && p.Progress <= o.last {
		p.Progress = o.above()
	}
	o.last, o.sent = p.Progress, true
	if p.Total > 0 {
		o.total = p.Total
	}
	return p
}

// above is the next progress: while no total is known progress counts
// reports, so it is the next whole number; against a total, or past the
// whole numbers a float64 tells apart, it is the least number above the
// last, which moves the fraction done by nothing.
func (o *progressOrder) above() float64 {
	if n := math.Floor(o.last) + 1; o.total == 0 && n > o.last {
		return n
	}
	return math.Nextafter(o.last, math.Inf(1))
}

// onProgress routes a notifications/progress to the call whose token it
// carries. It runs on the transport's read goroutine: it never blocks.
func (u *conn) onProgress(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	token, ok := f["progressToken"].(string)
	if !ok {
		return
	}
	var p Progress
	p.Progress, _ = f["progress"].(float64)
	p.Total, _ = f["total"].(float64)
	if msg, ok := f["message"].(string); ok {
		// What a server says goes on without the connection's secrets.
		p.Message = u.secret.Text(msg)
	}
	// The send happens under the lock, so that stop cannot close the
	// channel between the look-up and the send.
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.progress[token]
	if s == nil {
		return
	}
	select {
	case s.reports <- sinkReport{Progress: p}:
	default:
		u.log.Debug("dropped a progress report the caller had no time for")
	}
}
