package toolsmode

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/mux/upstream"
)

// methodSetLevel is the client's request for log messages at a level.
const methodSetLevel = "logging/setLevel"

// capabilities are tools, and logging when a Relay carries the upstreams'
// log messages; not the SDK's defaults, which would declare logging
// without anything to log.
func (s *Server) capabilities() *mcp.ServerCapabilities {
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	if s.opts.Relay != nil {
		caps.Logging = &mcp.LoggingCapabilities{}
	}
	return caps
}

// setLevel answers logging/setLevel: the SDK records the level, below
// which it sends the client nothing, and the level goes to every
// upstream that declares logging, now and when connected later.
func (s *Server) setLevel(ctx context.Context, next mcp.MethodHandler, req mcp.Request) (mcp.Result, error) {
	r, ok := req.(*mcp.ServerRequest[*mcp.SetLoggingLevelParams])
	if !ok || r.Params == nil || !upstream.ValidLogLevel(string(r.Params.Level)) {
		level := ""
		if ok && r.Params != nil {
			level = string(r.Params.Level)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("%s: %q is not a log level", methodSetLevel, clip.Runes(level, 32))}
	}
	res, err := next(ctx, methodSetLevel, req)
	if err == nil {
		s.opts.Relay.setLevel(string(r.Params.Level))
	}
	return res, err
}
