package toolsmode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// A tool that requires a task upstream (server-everything's
// simulate-research-query) is offered as a plain tool, since mcp serve
// does not speak tasks to its client, and a plain call is run to its end.
func TestServer_taskRequiredTool(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "everything", Tools: []string{"simulate-research-query"}},
	}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)

	const name = "everything__simulate_research_query"
	if caps, _ := json.Marshal(c.init.Capabilities); strings.Contains(string(caps), "tasks") {
		t.Errorf("capabilities claim tasks: %s", caps)
	}
	var list struct{ Tools []map[string]json.RawMessage }
	if err := json.Unmarshal(c.raw(t, "tools/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || string(list.Tools[0]["name"]) != `"`+name+`"` {
		t.Fatalf("tools/list = %+v", list.Tools)
	}
	if ex, ok := list.Tools[0]["execution"]; ok {
		t.Errorf("the tool claims an execution mcp serve does not offer: %s", ex)
	}

	r := c.call(t, name, map[string]any{"topic": "tides"})
	if r.IsError || !strings.HasPrefix(r.text(), "# Research Report: tides") {
		t.Errorf("plain call = %.200s (isError %v)", r.text(), r.IsError)
	}
	if strings.Contains(string(r.Meta), "related-task") {
		t.Errorf("the result names the upstream's task: %s", r.Meta)
	}

	// A client that asks for a task anyway is answered plainly, as a
	// server that does not declare tasks must.
	raw := c.raw(t, "tools/call", map[string]any{"name": name, "arguments": map[string]any{"topic": "reefs"}, "task": map[string]any{}})
	var res rawResult
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || !strings.HasPrefix(res.text(), "# Research Report: reefs") {
		t.Errorf("call with a task = %.300s", raw)
	}
	// Task requests are not this server's methods.
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"} {
		if _, err := c.rawE(method, map[string]any{"taskId": "x"}); err == nil || !strings.Contains(err.Error(), "-32601") {
			t.Errorf("%s: %v, want method not found", method, err)
		}
	}
}
