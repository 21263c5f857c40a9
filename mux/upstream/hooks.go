package upstream

import (
	"context"
	"encoding/json"
)

// Progress is one report on a call that has not finished: a server's
// notifications/progress, or the status of the task a call became.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // 0 when the server does not say
	Message  string  `json:"message,omitempty"`
}

// CallHooks are what a caller asks of one tools/call besides its result.
// They travel in the call's context (WithCallHooks), so that every layer
// between the verb and the connection (engine, multiplexer, wire) passes
// them on without a parameter of its own.
type CallHooks struct {
	// Meta is sent as the request's _meta: tools mode passes on the
	// client's keys. A progressToken in it is the caller's: the connection
	// sends its own and reports progress through OnProgress, for the
	// caller to pass on under its token. The keys a 2026-07-28 client
	// says of itself (io.modelcontextprotocol/protocolVersion,
	// clientCapabilities, clientInfo) are not sent either.
	Meta map[string]json.RawMessage
	// OnProgress, when set, asks the server for progress and receives each
	// report, in order, on a goroutine of the call; CallTool returns after
	// the last report it took in has been handed over. Reports that come
	// faster than it returns are dropped past a small backlog.
	OnProgress func(Progress)
	// OnLog, when set, receives the log messages the server sends while
	// the call runs. It must return quickly.
	OnLog func(LogMessage)
}

type callHooksKey struct{}

// WithCallHooks returns a context whose tools/call requests use h.
func WithCallHooks(ctx context.Context, h *CallHooks) context.Context {
	return context.WithValue(ctx, callHooksKey{}, h)
}

// HooksOf is the hooks of ctx's call; never nil.
func HooksOf(ctx context.Context) *CallHooks {
	if h, ok := ctx.Value(callHooksKey{}).(*CallHooks); ok && h != nil {
		return h
	}
	return &CallHooks{}
}
