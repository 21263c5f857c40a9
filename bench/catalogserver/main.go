// Command catalogserver is an MCP server on stdio that offers the tools of a
// catalog file, for end-to-end tests and scale benchmarks. Each tool answers
// a call with one text content: its name and its arguments as JSON.
//
//	catalogserver --catalog catalog.jsonl                  # every tool, named server.tool
//	catalogserver --catalog catalog.jsonl --server weather # one server's tools, own names
//	catalogserver --catalog catalog.jsonl --scale 10000    # 10,000 tools made from the real ones
//
// With --scale N the catalog is grown (or cut) to N tools by deterministic
// variation (see benchdata.Catalog.Scale): copy k of a server is named
// "<server>-k".
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
)

func main() {
	catalogPath := flag.String("catalog", "", "catalog file (JSON lines, one tool a line)")
	scale := flag.Int("scale", 0, "serve exactly this many tools, made by varying the catalog's")
	only := flag.String("server", "", "serve only this server's tools, under their own names")
	flag.Parse()
	if *catalogPath == "" {
		fmt.Fprintln(os.Stderr, "catalogserver: --catalog is required")
		os.Exit(2)
	}
	s, err := build(*catalogPath, *scale, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogserver:", err)
		os.Exit(1)
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "catalogserver:", err)
		os.Exit(1)
	}
}

// build makes the MCP server for a catalog file.
func build(path string, scale int, only string) (*server.MCPServer, error) {
	c, err := benchdata.LoadCatalog(path)
	if err != nil {
		return nil, err
	}
	servers := c.Servers
	if scale > 0 {
		servers = c.Scale(scale)
	}
	name, opts := "catalogserver", []server.ServerOption{server.WithToolCapabilities(false)}
	var tools []server.ServerTool
	seen := map[string]bool{}
	for _, s := range servers {
		if only != "" && s.ID != only {
			continue
		}
		if only != "" {
			name = s.ID
			if s.Info.Title != "" {
				opts = append(opts, server.WithTitle(s.Info.Title))
			}
			if s.Info.Description != "" {
				opts = append(opts, server.WithInstructions(s.Info.Description))
			}
		}
		for _, t := range s.Tools {
			toolName := t.ID()
			if only != "" {
				toolName = t.Name
			}
			if seen[toolName] {
				return nil, fmt.Errorf("tool %q appears twice", toolName)
			}
			seen[toolName] = true
			schema := t.InputSchema
			if len(schema) == 0 || !json.Valid(schema) {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			tool := mcp.NewToolWithRawSchema(toolName, t.Description, schema)
			tools = append(tools, server.ServerTool{Tool: tool, Handler: echo(toolName)})
		}
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("no tools to serve")
	}
	s := server.NewMCPServer(name, "0.0.0", opts...)
	s.AddTools(tools...)
	return s, nil
}

// echo answers a call with the tool's name and its arguments.
func echo(name string) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := json.Marshal(req.GetArguments())
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(name + " " + string(args)), nil
	}
}
