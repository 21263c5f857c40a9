package main

import (
	"context"
	"fmt"

	"github.com/mcpsh/mcp/mux/upstream"
)

// showLogs is ctx with the call's hooks printing each log message its
// server sends, one line on stderr: "mcp: log SERVER LEVEL: text", made
// safe for a terminal like all server text.
func (a *app) showLogs(ctx context.Context) context.Context {
	h := *upstream.HooksOf(ctx)
	h.OnLog = func(m upstream.LogMessage) {
		a.warnMu.Lock()
		defer a.warnMu.Unlock()
		a.progressLine().Clear(nil)
		fmt.Fprintf(a.stderr, "mcp: log %s %s: %s\n", m.Server, m.Level, m.Text())
	}
	return upstream.WithCallHooks(ctx, &h)
}
