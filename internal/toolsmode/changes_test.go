package toolsmode

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// A tool the server adds after the client connected is served, as seed
// 004 says of "*": the package-visible set includes tools the server adds
// later. Eager, it is in tools/list at once (the client hears
// tools/list_changed) and can be called; deferred, mcp_search finds it.
// A server whose tools are named one by one gets no new tool.
func TestServer_ToolsAddedLater(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "fake", All: true, Defer: []string{"hidden_late"}},
		{ID: "named", Tools: []string{"echo", "addtool"}},
	}, testenv.FakeServer(t, testenv.ModeDefault), withID(testenv.FakeServer(t, testenv.ModeDefault), "named"))
	s, warnings := newServer(t, eng, Options{})
	c := inProcess(t, s)
	if got := names(c.tools(t)); slices.Contains(got, "fake__late") {
		t.Fatalf("fake__late is served before it was added: %v", got)
	}

	if r := c.call(t, "fake__addtool", map[string]any{"name": "late"}); r.IsError {
		t.Fatalf("addtool: %+v", r)
	}
	c.waitChanged(t)
	if got := names(c.tools(t)); !slices.Contains(got, "fake__late") {
		t.Fatalf("tools/list after the server added a tool = %v, want fake__late in it", got)
	}
	if r := c.call(t, "fake__late", map[string]any{}); r.IsError || r.text() != "late" {
		t.Errorf("fake__late = %+v", r)
	}

	// Deferred: behind mcp_search, which appears now that something is deferred.
	if r := c.call(t, "fake__addtool", map[string]any{"name": "hidden_late"}); r.IsError {
		t.Fatalf("addtool: %+v", r)
	}
	c.waitChanged(t)
	if r := c.call(t, "fake__hidden_late", map[string]any{}); !r.IsError || !strings.Contains(r.text(), "not available in this session") {
		t.Errorf("a deferred tool was callable before mcp_search loaded it: %+v", r)
	}
	if r := c.call(t, SearchTool, map[string]any{"query": "hidden_late"}); r.IsError || !strings.Contains(r.text(), "fake__hidden_late") {
		t.Fatalf("mcp_search did not find the deferred new tool: %+v", r)
	}
	if r := c.call(t, "fake__hidden_late", map[string]any{}); r.IsError || r.text() != "hidden_late" {
		t.Errorf("fake__hidden_late after mcp_search = %+v", r)
	}

	// Tools named one by one: a new one is not served.
	if r := c.call(t, "named__addtool", map[string]any{"name": "late"}); r.IsError {
		t.Fatalf("addtool: %+v", r)
	}
	if r := c.call(t, "named__late", map[string]any{}); !r.IsError || !strings.Contains(r.text(), "not available in this session") {
		t.Errorf("a tool outside the named list was served: %+v", r)
	}
	if got := names(c.tools(t)); slices.Contains(got, "named__late") {
		t.Errorf("tools/list = %v, holds named__late", got)
	}
	if len(*warnings) > 0 {
		t.Errorf("warnings: %q", *warnings)
	}
}
