package upstream

import (
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// progressBuffer is how many reports of one call may wait for its
// OnProgress; more are dropped (the next one says as much).
const progressBuffer = 32

// progressSink hands one call's progress reports to its OnProgress in
// order, on a goroutine of its own: the reports arrive on the transport's
// read goroutine, which must not wait for the caller.
type progressSink struct {
	reports chan Progress
	done    chan struct{}
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
// watch starts routing that token's reports to h.OnProgress; stop, which
// the caller defers, ends it and returns once every report taken in has
// been handed over.
func (u *conn) callMeta(h *CallHooks) (meta map[string]any, stop func()) {
	meta = map[string]any{}
	for k, v := range h.Meta {
		if !ownMeta[k] {
			meta[k] = v
		}
	}
	stop = func() {}
	if h.OnProgress != nil {
		token := "mcp-progress-" + strconv.FormatInt(u.nextID.Add(1), 10)
		meta["progressToken"] = token
		stop = u.watchProgress(token, h.OnProgress)
	}
	if len(meta) == 0 {
		meta = nil
	}
	return meta, stop
}

func (u *conn) watchProgress(token string, on func(Progress)) (stop func()) {
	s := &progressSink{reports: make(chan Progress, progressBuffer), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for p := range s.reports {
			on(p)
		}
	}()
	u.mu.Lock()
	if u.progress == nil {
		u.progress = map[string]*progressSink{}
	}
	u.progress[token] = s
	u.mu.Unlock()
	return func() {
		u.mu.Lock()
		delete(u.progress, token)
		u.mu.Unlock()
		close(s.reports)
		<-s.done
	}
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
	case s.reports <- p:
	default:
		u.log.Debug("dropped a progress report the caller had no time for")
	}
}
