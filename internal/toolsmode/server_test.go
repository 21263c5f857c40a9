package toolsmode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// Against server-everything and server-memory: eager tools with their raw
// schemas, mcp_search loading a deferred tool, and the gate.
func TestServer_EagerSearchAndGate(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "everything", All: true, Exclude: []string{"get-env"}, DeferAll: true, Eager: []string{"echo"}},
		{ID: "memory", Tools: []string{"read_graph", "create_entities", "search_nodes"}, Defer: []string{"search_nodes"}},
	}, testenv.EverythingStdio(t), testenv.Memory(t))
	s, warnings := newServer(t, eng, Options{})
	if len(*warnings) > 0 {
		t.Errorf("warnings: %q", *warnings)
	}
	c := inProcess(t, s)

	want := []string{"everything__echo", "mcp_search", "memory__create_entities", "memory__read_graph"}
	tools := c.tools(t)
	if got := names(tools); !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	// The schema and description are the upstream's, byte for byte.
	ctx := context.Background()
	upstream, err := eng.Tools(ctx, "everything")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]catalog.Tool{}
	for _, u := range upstream {
		byName[u.Name] = u
	}
	echo := tools["everything__echo"]
	if !sameJSON(echo.InputSchema, byName["echo"].InputSchema) || echo.Description != byName["echo"].Description {
		t.Errorf("everything__echo = %s %q, upstream %s %q", echo.InputSchema, echo.Description, byName["echo"].InputSchema, byName["echo"].Description)
	}
	if r := c.call(t, "everything__echo", map[string]any{"message": "hi"}); r.IsError || r.text() != "Echo: hi" {
		t.Errorf("echo = %+v", r)
	}

	// Hidden, unauthorized and unknown names all get the same answer.
	for _, name := range []string{"everything__get_sum", "memory__search_nodes", "everything__get_env", "everything__nope", "nope"} {
		r := c.call(t, name, map[string]any{"a": 1, "b": 2})
		if !r.IsError || r.text() != name+" is not one of the tools this server lists; mcp_search finds more tools" {
			t.Errorf("%s: %+v, want the not-available tool error", name, r)
		}
	}
	// A name with a space is no tool name: it is quoted.
	if r := c.call(t, "mcp refused", map[string]any{"name": "everything__echo"}); !r.IsError || r.text() != `"mcp refused" is not one of the tools this server lists; mcp_search finds more tools` {
		t.Errorf("a name with a space: %+v", r)
	}

	// A name that is no tool name at all is quoted, on one line.
	if r := c.call(t, "two\nlines", nil); !r.IsError || r.text() != `"two\nlines" is not one of the tools this server lists; mcp_search finds more tools` {
		t.Errorf("a name with a newline: %+v", r)
	}

	// mcp_search finds a deferred tool, loads it and says so.
	r := c.call(t, SearchTool, map[string]any{"query": "add two numbers and return the sum", "limit": 1})
	if r.IsError {
		t.Fatalf("mcp_search: %s", r.text())
	}
	var found struct {
		Tools []found `json:"tools"`
	}
	if err := json.Unmarshal(r.StructuredContent, &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Tools) != 1 || found.Tools[0].Name != "everything__get_sum" || found.Tools[0].Server != "everything" || found.Tools[0].Tool != "get-sum" {
		t.Fatalf("mcp_search found %+v", found.Tools)
	}
	if !sameJSON(found.Tools[0].InputSchema, byName["get-sum"].InputSchema) {
		t.Errorf("found schema %s, upstream %s", found.Tools[0].InputSchema, byName["get-sum"].InputSchema)
	}
	c.waitChanged(t)
	tools = c.tools(t)
	if _, ok := tools["everything__get_sum"]; !ok || len(tools) != len(want)+1 {
		t.Fatalf("after mcp_search: tools/list = %v", names(tools))
	}
	r = c.call(t, "everything__get_sum", map[string]any{"a": 2, "b": 40})
	if r.IsError || !strings.Contains(r.text(), "42") {
		t.Errorf("get_sum = %+v", r)
	}
	// Loading again is additive and quiet.
	c.call(t, SearchTool, map[string]any{"query": "add two numbers and return the sum", "limit": 1})
	// Excluded tools are never found.
	r = c.call(t, SearchTool, map[string]any{"query": "environment variables env", "limit": 20})
	if strings.Contains(string(r.StructuredContent), "get_env") {
		t.Errorf("mcp_search found an excluded tool: %s", r.StructuredContent)
	}
	// Another server's deferred tool.
	r = c.call(t, SearchTool, map[string]any{"query": "search nodes in the knowledge graph", "limit": 1})
	if !strings.Contains(string(r.StructuredContent), `"memory__search_nodes"`) {
		t.Errorf("mcp_search for search_nodes: %s", r.StructuredContent)
	}
	c.waitChanged(t)
	if r := c.call(t, "memory__search_nodes", map[string]any{"query": "ada"}); r.IsError {
		t.Errorf("search_nodes: %s", r.text())
	}
	if n := c.count.Load(); n != 2 {
		t.Errorf("%d tools/list_changed, want 2 (one per search that loaded something)", n)
	}
	if got := s.Active(); len(got) != len(want)+2 {
		t.Errorf("Active = %v", got)
	}

	// A search that loads several tools sends one notification.
	r = c.call(t, SearchTool, map[string]any{"query": "get resource image message annotated structured", "limit": 20})
	if err := json.Unmarshal(r.StructuredContent, &found); err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, f := range found.Tools {
		if f.Name != "everything__get_sum" && f.Name != "memory__search_nodes" {
			loaded++
		}
	}
	if loaded < 2 {
		t.Fatalf("the search loaded %d tools, want at least 2: %s", loaded, r.StructuredContent)
	}
	c.waitChanged(t)
	time.Sleep(200 * time.Millisecond) // twenty times the SDK's 10 ms delay
	if n := c.count.Load(); n != 3 {
		t.Errorf("%d tools/list_changed after a search that loaded %d tools, want 3", n, loaded)
	}
	if got := s.Active(); len(got) != len(want)+2+loaded {
		t.Errorf("Active = %v, want %d names", got, len(want)+2+loaded)
	}

	// Bad arguments to mcp_search are tool errors.
	for _, args := range []map[string]any{{}, {"query": "  "}, {"query": "sum", "limit": 0}, {"query": "sum", "limit": 1000}} {
		if r := c.call(t, SearchTool, args); !r.IsError || !strings.HasPrefix(r.text(), "mcp_search: ") {
			t.Errorf("mcp_search %v = %+v", args, r)
		}
	}
}

// Without deferred tools there is no mcp_search, and its name is refused
// like any other.
func TestServer_NoDeferredNoSearch(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "everything", Tools: []string{"echo", "get-sum"}}}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	if got := names(c.tools(t)); !slices.Equal(got, []string{"everything__echo", "everything__get_sum"}) {
		t.Errorf("tools/list = %v", got)
	}
	if r := c.call(t, SearchTool, map[string]any{"query": "sum"}); !r.IsError || r.text() != "mcp_search is not one of the tools this server lists" {
		t.Errorf("mcp_search = %+v", r)
	}
}

// Results come back as the upstream sent them, and upstream failures are
// one-line tool errors that leave the server up.
func TestServer_ResultsAndFailures(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, eng, Options{CallTimeout: 2 * time.Second})
	c := inProcess(t, s)
	tools := c.tools(t)

	// Fields mcp-go's typed schema drops survive.
	schema := string(tools["fake__schema"].InputSchema)
	for _, want := range []string{`"$schema"`, `"anyOf"`, `"x-extra":true`, `"description":"top-level description"`} {
		if !strings.Contains(schema, want) {
			t.Errorf("fake__schema input schema %s lacks %s", schema, want)
		}
	}
	// Content of a type nobody knows, byte for byte.
	r := c.call(t, "fake__weird", map[string]any{})
	if len(r.Content) != 1 || string(r.Content[0]) != `{"type":"`+testenv.WeirdContentType+`","data":"AAEC"}` {
		t.Errorf("weird content = %s", r.Content)
	}
	// Structured content keeps a number float64 would round.
	r = c.call(t, "fake__structured", map[string]any{})
	if string(r.StructuredContent) != `{"n":12345678901234567890}` {
		t.Errorf("structuredContent = %s", r.StructuredContent)
	}
	// isError passes through.
	if r := c.call(t, "fake__fail", map[string]any{}); !r.IsError || r.text() != "the tool failed on purpose" {
		t.Errorf("fail = %+v", r)
	}
	// A JSON-RPC error upstream becomes a tool error.
	if r := c.call(t, "fake__rpcerr", map[string]any{}); !r.IsError || !strings.HasPrefix(r.text(), "fake__rpcerr: server error ") {
		t.Errorf("rpcerr = %+v", r)
	}
	// A timeout.
	r = c.call(t, "fake__slow", map[string]any{"ms": 10000})
	if !r.IsError || r.text() != "fake__slow timed out after 2s: server fake did not answer in time" {
		t.Errorf("slow = %+v", r)
	}
	// A crash mid-call.
	r = c.call(t, "fake__crash", map[string]any{})
	if !r.IsError || !strings.HasPrefix(r.text(), "fake__crash: server fake is unavailable") || strings.Contains(r.text(), "\n") {
		t.Errorf("crash = %+v", r)
	}
	// The server is still up, and the upstream is reached again.
	if r := c.call(t, "fake__echo", map[string]any{"message": "still here"}); r.IsError || r.text() != "Echo: still here" {
		t.Errorf("echo after the failures = %+v", r)
	}
}

// Stopping the server (a signal, in `mcp serve`) cancels the upstream
// calls still running rather than waiting for them; their answers are not
// sent, as the connection is closing.
func TestServer_StopCancelsCalls(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", Tools: []string{"wait", "echo"}}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, eng, Options{CallTimeout: time.Minute})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	c, served := serve(t, ctx, s)
	// The upstream is connected at the first call.
	if r := c.call(t, "fake__echo", map[string]any{"message": "up"}); r.text() != "Echo: up" {
		t.Fatalf("echo = %+v", r)
	}
	mark := filepath.Join(t.TempDir(), "mark")
	calls := make(chan error, 1)
	go func() {
		_, err := c.callE("fake__wait", map[string]any{"mark": mark})
		calls <- err
	}()
	time.Sleep(500 * time.Millisecond) // for the call to reach the upstream
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeStdio = %v, want nil when stopped on purpose", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStdio did not return within 20s of being stopped")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("stopping took %v, but the call's timeout is a minute", d)
	}
	// The upstream saw the cancellation.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(mark)
		if string(b) == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream call was not cancelled: mark = %q", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = c.Close()
	if err := <-calls; err == nil {
		t.Error("the call in flight got an answer from a server that was stopping")
	}
}

// panicky is a real engine whose calls of one tool panic.
type panicky struct {
	*mux.Engine
	tool string
}

func (p panicky) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	if tool == p.tool {
		panic("a bug\nover two lines")
	}
	return p.Engine.Call(ctx, server, tool, args)
}

// A panic while handling a call is that call's tool error; the server
// stays up.
func TestServer_PanicIsToolError(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", Tools: []string{"fail", "echo"}}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, panicky{Engine: eng, tool: "fail"}, Options{})
	c := inProcess(t, s)
	if r := c.call(t, "fake__fail", map[string]any{}); !r.IsError || r.text() != "fake__fail: internal error: a bug over two lines" {
		t.Errorf("fail = %+v", r)
	}
	if r := c.call(t, "fake__echo", map[string]any{"message": "still here"}); r.IsError || r.text() != "Echo: still here" {
		t.Errorf("echo after the panic = %+v", r)
	}
}

// A server that cannot be listed at start is left out with a warning; the
// others are served.
func TestServer_UnavailableAtStart(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "broken", All: true},
		{ID: "fake", Tools: []string{"echo"}},
	}, withID(testenv.FakeServer(t, testenv.ModeExit), "broken"), testenv.FakeServer(t, testenv.ModeDefault))
	s, warnings := newServer(t, eng, Options{})
	if len(*warnings) != 1 || !strings.HasPrefix((*warnings)[0], "the tools of broken are not served: ") {
		t.Errorf("warnings = %q", *warnings)
	}
	c := inProcess(t, s)
	if got := names(c.tools(t)); !slices.Equal(got, []string{"fake__echo"}) {
		t.Errorf("tools/list = %v", got)
	}
}

// With a cached tool list, nothing is connected at start: the tools are
// served from the cache, and a server that turns out to be unreachable
// gives a tool error at the call.
func TestServer_LazyFromCache(t *testing.T) {
	cache, err := catalog.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The server's command is a link to node, removed once the tools are
	// cached: the endpoint (and so its cache key) stays the same, but the
	// server can no longer start.
	ep := testenv.EverythingStdio(t)
	link := filepath.Join(t.TempDir(), "node")
	if err := os.Symlink(ep.Command, link); err != nil {
		t.Fatal(err)
	}
	ep.Command = link
	servers := []*catalog.ServerSurface{{ID: "everything", Tools: []string{"echo"}}}

	// The first engine lists the server, which records it in the cache.
	first := newEngine(t, servers, ep)
	first.SetCache(cache)
	s1, _ := newServer(t, first, Options{})
	if got := s1.Active(); !slices.Equal(got, []string{"everything__echo"}) {
		t.Fatalf("first Active = %v", got)
	}

	// The second cannot start the server at all, yet serves its tools.
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	second := newEngine(t, servers, ep)
	second.SetCache(cache)
	s2, warnings := newServer(t, second, Options{})
	if len(*warnings) != 0 {
		t.Errorf("warnings = %q", *warnings)
	}
	c := inProcess(t, s2)
	if got := names(c.tools(t)); !slices.Equal(got, []string{"everything__echo"}) {
		t.Fatalf("tools/list = %v", got)
	}
	r := c.call(t, "everything__echo", map[string]any{"message": "hi"})
	if !r.IsError || !strings.HasPrefix(r.text(), "everything__echo: server everything is unavailable") {
		t.Errorf("call = %+v", r)
	}
}

func TestNew_ModeError(t *testing.T) {
	s := &catalog.Surface{Agent: "tester", Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "everything", All: true}}}
	eng := mux.NewEngine(s, map[string]manifests.Endpoint{"everything": {ID: "everything", Command: "/nonexistent"}}, os.LookupEnv, upstream.Options{})
	defer eng.Close()
	_, err := New(context.Background(), eng, Options{})
	var me *ModeError
	if !errors.As(err, &me) || err.Error() != "agent tester is in cli mode; mcp serve is for tools mode" {
		t.Errorf("New = %v, want a *ModeError", err)
	}
}

// Concurrent searches load tools while other calls run; a tool that
// mcp_search returned is callable as soon as the search has answered.
func TestServer_ConcurrentSearch(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "everything", All: true, Exclude: []string{"get-env"}, DeferAll: true, Eager: []string{"echo"}}},
		testenv.EverythingStdio(t))
	// A tool found here may run long with no arguments; what matters is
	// that it is not refused.
	s, _ := newServer(t, eng, Options{CallTimeout: time.Second})
	c := inProcess(t, s)
	queries := []string{"add two numbers", "tiny image", "structured content weather", "annotated message", "resource links", "long running operation"}
	errs := make(chan string, 4*len(queries))
	done := make(chan struct{})
	for _, q := range queries {
		go func() {
			defer func() { done <- struct{}{} }()
			r, err := c.callE(SearchTool, map[string]any{"query": q, "limit": 2})
			var res struct{ Tools []found }
			if err != nil || r.IsError || json.Unmarshal(r.StructuredContent, &res) != nil || len(res.Tools) == 0 {
				errs <- fmt.Sprintf("%s: %v %s", q, err, r.text())
				return
			}
			for _, f := range res.Tools {
				got, err := c.callE(f.Name, map[string]any{})
				if err != nil || strings.Contains(got.text(), "is not one of the tools this server lists") {
					errs <- fmt.Sprintf("%s after mcp_search returned it: %v %s", f.Name, err, got.text())
				}
			}
			if r, err := c.callE("everything__echo", map[string]any{"message": q}); err != nil || r.text() != "Echo: "+q {
				errs <- fmt.Sprintf("echo: %v %s", err, r.text())
			}
		}()
	}
	for range queries {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if active := s.Active(); len(active) < 4 {
		t.Errorf("Active = %v", active)
	}
}
