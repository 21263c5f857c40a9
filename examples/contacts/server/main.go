// Command server runs the example contacts MCP server over stdio.
package main

import (
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpsh/mcp/examples/contacts"
)

func main() {
	if err := server.ServeStdio(contacts.NewServer()); err != nil {
		fmt.Fprintln(os.Stderr, "contacts:", err)
		os.Exit(1)
	}
}
