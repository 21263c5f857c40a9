package mux

import (
	"context"

	"github.com/mcpsh/mcp/mux/upstream"
)

// logsTo is ctx with the call's hooks sending its server's log messages
// to write, as the log objects of the socket protocol.
func logsTo(ctx context.Context, write func(*response)) context.Context {
	h := *upstream.HooksOf(ctx)
	h.OnLog = func(m upstream.LogMessage) { write(&response{Log: &m}) }
	return upstream.WithCallHooks(ctx, &h)
}
