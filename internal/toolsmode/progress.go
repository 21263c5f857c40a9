package toolsmode

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/internal/idle"
	"github.com/mcpsh/mcp/internal/registry"
	"github.com/mcpsh/mcp/mux/upstream"
)

// withCallHooks is ctx for the upstream call of the client's req, and a
// cancel that releases it. The client's _meta goes upstream, key by key;
// when it carries a progressToken, the upstream's progress comes back to
// the client under that token. The call's time limit (CallTimeout) is the
// longest silence: each report restarts it.
func (s *Server) withCallHooks(ctx context.Context, req *mcp.CallToolRequest) (context.Context, context.CancelFunc) {
	return s.callHooks(ctx, req, nil)
}

// callHooks is withCallHooks for a call whose progress goes to the client
// only while live says so (nil: always): a progress token names one
// request, and the reports past its end would name a request that is over.
func (s *Server) callHooks(ctx context.Context, req *mcp.CallToolRequest, live func() bool) (context.Context, context.CancelFunc) {
	touch, cancel := func() {}, context.CancelFunc(func() {})
	if s.opts.CallTimeout > 0 {
		var end context.CancelFunc
		ctx, touch, end = idle.WithTimeout(ctx, s.opts.CallTimeout)
		remove := s.clocks.Add(ctx)
		cancel = func() { remove(); end() }
	}
	h := *upstream.HooksOf(ctx)
	if meta := req.Params.Meta; len(meta) > 0 {
		h.Meta = make(map[string]json.RawMessage, len(meta))
		for k, v := range meta {
			if b, err := json.Marshal(v); err == nil {
				h.Meta[k] = b
			}
		}
	}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		session, callCtx := req.Session, ctx
		h.OnProgress = func(p upstream.Progress) {
			touch()
			if live != nil && !live() {
				return
			}
			// A client that is gone misses a report; the call's own
			// answer says whether it still listens.
			_ = session.NotifyProgress(callCtx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
			})
		}
	}
	return upstream.WithCallHooks(ctx, &h), cancel
}

// callClocks are the clocks (CallTimeout) of the calls in flight. A
// relayed request for input holds them all while a person answers it:
// over stdio nothing says which call it belongs to, and a person's time is
// no call's silence.
type callClocks struct{ registry.Set[context.Context] }

// hold stops the clocks of the calls in flight until release.
func (c *callClocks) hold() (release func()) {
	var releases []func()
	for _, ctx := range c.All() {
		releases = append(releases, idle.Hold(ctx))
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}
