package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const fixture = `{"id": "weather.get_forecast", "server": "weather", "name": "get_forecast", "description": "Forecast", "inputSchema": {"type":"object","properties":{"city":{"type":"string"}}}, "server_title": "Weather"}
{"id": "files.read_file", "server": "files", "name": "read_file", "description": "Read a file", "inputSchema": {"type":"object"}}
{"id": "files.get_forecast", "server": "files", "name": "get_forecast", "description": "Same name, other server"}
`

func connect(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func catalogFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(p, []byte(fixture), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func listNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestBuild_AllAndOneServer(t *testing.T) {
	path := catalogFile(t)
	s, err := build(path, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	if got := listNames(t, c); len(got) != 3 {
		t.Errorf("tools = %v", got)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "weather.get_forecast"
	req.Params.Arguments = map[string]any{"city": "Oslo"}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if text != `weather.get_forecast {"city":"Oslo"}` {
		t.Errorf("echo = %q", text)
	}

	s, err = build(path, 0, "files")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(listNames(t, connect(t, s)), " ")
	if !strings.Contains(got, "read_file") || !strings.Contains(got, "get_forecast") || strings.Contains(got, ".") {
		t.Errorf("one server's tools = %q", got)
	}
	if _, err := build(path, 0, "nope"); err == nil {
		t.Error("unknown server accepted")
	}
}

func TestBuild_Scale(t *testing.T) {
	s, err := build(catalogFile(t), 250, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, connect(t, s)); len(got) != 250 {
		t.Errorf("%d tools, want 250", len(got))
	}
}
