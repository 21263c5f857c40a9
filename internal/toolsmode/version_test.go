package toolsmode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// A client that asks initialize for 2026-07-28 is answered in the legacy
// revision that initialize negotiates, and gets what that revision
// promises: tools/list_changed after mcp_search loads a tool, and results
// without the newer revision's fields (resultType; ttlMs and cacheScope). The SDK decides both by the version
// asked for, so the server corrects the request before the SDK reads it.
func TestServer_InitializeAskingForNewerRevision(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true, DeferAll: true}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, eng, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _ := serveStarted(t, ctx, s)

	res := c.raw(t, "initialize", map[string]any{
		"protocolVersion": "2026-07-28",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "newer-client", "version": "1"},
	})
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion >= "2026-07-28" {
		t.Fatalf("initialize answered %s (%v), want a revision initialize negotiates", res, err)
	}
	nctx, ncancel := context.WithTimeout(ctx, 10*time.Second)
	defer ncancel()
	if err := c.GetTransport().SendNotification(nctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: "notifications/initialized"}}); err != nil {
		t.Fatal(err)
	}
	out := c.raw(t, "tools/call", map[string]any{"name": SearchTool, "arguments": map[string]any{"query": "echo"}})
	if !strings.Contains(string(out), "fake__echo") {
		t.Fatalf("mcp_search = %s", out)
	}
	if strings.Contains(string(out), "resultType") {
		t.Errorf("a result in %s carries resultType: %s", init.ProtocolVersion, out)
	}
	c.waitChanged(t)
	// The SDK puts the cache hints of 2026-07-28 in every tools/list.
	list := c.raw(t, "tools/list", map[string]any{})
	for _, field := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`} {
		if strings.Contains(string(list), field) {
			t.Errorf("tools/list in %s carries %s: %s", init.ProtocolVersion, field, list)
		}
	}
}
