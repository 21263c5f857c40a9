package upstream

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
)

// RPCError is a JSON-RPC error response from a server: it understood the
// request and refused it (unknown tool, invalid params, a failing handler).
// The connection is still usable.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage // absent when the server sent none
}

func (e *RPCError) ExitCode() int { return exit.ToolError }

func (e *RPCError) Error() string {
	return fmt.Sprintf("server error %d: %s", e.Code, e.message())
}

// Summary is the error on one line.
func (e *RPCError) Summary() string {
	return fmt.Sprintf("server error %d: %s", e.Code, clip.Line(e.message()))
}

// message is the server's message without the "MCP error CODE: " that
// some SDKs put before it (the TypeScript SDK's McpError), which would say
// the code twice.
func (e *RPCError) message() string {
	prefix := fmt.Sprintf("mcp error %d:", e.Code)
	if len(e.Message) > len(prefix) && strings.EqualFold(e.Message[:len(prefix)], prefix) {
		if rest := strings.TrimSpace(e.Message[len(prefix):]); rest != "" {
			return rest
		}
	}
	return e.Message
}
