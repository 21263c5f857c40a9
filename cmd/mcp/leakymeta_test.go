package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// addLeakyMetaTools makes the fake server repeat API_KEY from its
// environment in what it says of itself, as a careless server does: its
// instructions, and the title, description, a parameter's description and
// default of its tool "lookup". Its tool "unreachable" fails as a Node
// server that cannot resolve its upstream does, in a message of ordinary
// words that also quotes the key.
func addLeakyMetaTools(s *server.MCPServer) {
	key := os.Getenv("API_KEY")
	server.WithInstructions("Authenticate with " + key + " before anything else.")(s)
	s.AddTool(mcp.NewTool("lookup", mcp.WithToolTitle("Lookup ("+key+")"),
		mcp.WithDescription("Finds a record in the directory; the key is "+key),
		mcp.WithString("key", mcp.Description("the API key, by default "+key), mcp.DefaultString(key))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("found"), nil
		})
	s.AddTool(mcp.NewTool("unreachable", mcp.WithDescription("Reaches the directory service")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("getaddrinfo ENOTFOUND api.example.com (log level info in production over stdio, retry true, key %s)", key)
		})
}
