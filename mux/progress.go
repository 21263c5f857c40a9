package mux

import (
	"context"

	"github.com/mcpsh/mcp/mux/upstream"
)

// withProgressOf is ctx with the call hooks req asks for: when it asks
// for progress, each report of its tool call is written to the client
// through write, before the final response.
func withProgressOf(ctx context.Context, req *request, write func(*response)) context.Context {
	if !req.Progress {
		return ctx
	}
	h := *upstream.HooksOf(ctx)
	h.OnProgress = func(p upstream.Progress) { write(&response{Progress: &p}) }
	return upstream.WithCallHooks(ctx, &h)
}
