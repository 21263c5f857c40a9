package upstream

import "testing"

// An SDK that puts its own "MCP error CODE: " before the message (the
// TypeScript SDK's McpError does) does not make the code said twice.
func TestRPCError_ownPrefix(t *testing.T) {
	for _, c := range []struct {
		code int
		msg  string
		want string
	}{
		{-32603, "MCP error -32603: Failed to generate chart", "server error -32603: Failed to generate chart"},
		{-32602, "mcp error -32602:  bad\nparams", "server error -32602: bad params"},
		{-32603, "Failed: MCP error -32603: inside", "server error -32603: Failed: MCP error -32603: inside"},
		// A different code in the message is the server's to say.
		{-32603, "MCP error -32000: upstream", "server error -32603: MCP error -32000: upstream"},
		{-32603, "MCP error -32603: ", "server error -32603: MCP error -32603:"},
	} {
		e := &RPCError{Code: c.code, Message: c.msg}
		if got := e.Summary(); got != c.want {
			t.Errorf("Summary of %q = %q, want %q", c.msg, got, c.want)
		}
	}
	e := &RPCError{Code: -32603, Message: "MCP error -32603: Failed to generate chart"}
	if got, want := e.Error(), "server error -32603: Failed to generate chart"; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
}
