package toolsmode

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
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
	if r := c.call(t, "fake__hidden_late", map[string]any{}); !r.IsError || !strings.Contains(r.text(), "is not one of the tools this server lists") {
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
	if r := c.call(t, "named__late", map[string]any{}); !r.IsError || !strings.Contains(r.text(), "is not one of the tools this server lists") {
		t.Errorf("a tool outside the named list was served: %+v", r)
	}
	if got := names(c.tools(t)); slices.Contains(got, "named__late") {
		t.Errorf("tools/list = %v, holds named__late", got)
	}
	if len(*warnings) > 0 {
		t.Errorf("warnings: %q", *warnings)
	}
}

// downAtStart is an engine whose first listing of a server fails, as a
// server slow to start fails serve's --timeout at start.
type downAtStart struct {
	Engine
	server string
	failed atomic.Bool
}

func (e *downAtStart) Tools(ctx context.Context, server string) ([]catalog.Tool, error) {
	if server == e.server && e.failed.CompareAndSwap(false, true) {
		return nil, errors.New("not started yet")
	}
	return e.Engine.Tools(ctx, server)
}

// A server whose tools could not be listed at start is listed again in
// the background, and its tools are served once they come: the client
// hears tools/list_changed and can call them.
func TestServer_ListsAgainAServerDownAtStart(t *testing.T) {
	eng := &downAtStart{Engine: newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true}},
		testenv.FakeServer(t, testenv.ModeDefault)), server: "fake"}
	s, warnings := newServer(t, eng, Options{})
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "the tools of fake are not served") {
		t.Fatalf("warnings = %q, want the one of a server not listed", *warnings)
	}
	c := inProcess(t, s)
	if got := names(c.tools(t)); slices.Contains(got, "fake__echo") {
		t.Fatalf("fake__echo is served before fake could be listed: %v", got)
	}
	c.waitChanged(t)
	if got := names(c.tools(t)); !slices.Contains(got, "fake__echo") {
		t.Fatalf("tools/list after fake was listed again = %v, want fake__echo in it", got)
	}
	if r := c.call(t, "fake__echo", map[string]any{"message": "back"}); r.IsError || r.text() != "Echo: back" {
		t.Errorf("fake__echo = %+v", r)
	}
}
