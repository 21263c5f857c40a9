package toolsmode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// A client's arguments are checked as mcp call checks them: what reaches
// the server (which answers with the arguments it received) is what mcp
// call would send, and what mcp call refuses is a tool error that names
// the problem, sent nowhere.
func TestServer_ArgumentsAsCall(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true}}, testenv.FakeServer(t, testenv.ModeShapes))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	sent := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fake__browser_emulate", map[string]any{"region": "eu", "verbose": nil, "colorScheme": nil}, `{"colorScheme":null,"region":"eu"}`},
		{"fake__browser_take_screenshot", map[string]any{}, `{}`},
		{"fake__set_config_value", map[string]any{"key": "k", "value": []string{"mkfs", "dd"}}, `{"key":"k","value":["mkfs","dd"]}`},
		{"fake__post_page", map[string]any{"parent": map[string]any{"page_id": "p"}}, `{"parent":{"page_id":"p"}}`},
		{"fake__generate_bar_chart", map[string]any{"data": []any{map[string]any{"category": "a", "value": 1, "group": nil}}, "title": nil},
			`{"data":[{"category":"a","value":1}]}`},
	}
	for _, tt := range sent {
		if r := c.call(t, tt.tool, tt.args); r.IsError || r.text() != tt.want {
			t.Errorf("%s %v: %q (isError %v), want %s", tt.tool, tt.args, r.text(), r.IsError, tt.want)
		}
	}
	refused := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fake__browser_emulate", map[string]any{"region": nil}, "fake__browser_emulate: /region: got null, want string"},
		{"fake__browser_take_screenshot", map[string]any{"scale": "big"}, "/scale: value must be one of 'css', 'device'"},
		{"fake__sequentialthinking", map[string]any{"thought": "t", "nextThoughtNeeded": false, "thoughtNumber": 0, "totalThoughts": 1, "isRevision": "maybe"},
			"/isRevision: got string, want boolean; /thoughtNumber: minimum: got 0, want 1"},
		{"fake__sequentialthinking", map[string]any{"thought": "t"}, "missing required argument nextThoughtNeeded, thoughtNumber, totalThoughts"},
		{"fake__set_config_value", map[string]any{"key": "k", "vaule": 1}, "unknown argument vaule (did you mean value?)"},
	}
	for _, tt := range refused {
		if r := c.call(t, tt.tool, tt.args); !r.IsError || !strings.Contains(r.text(), tt.want) {
			t.Errorf("%s %v: %q (isError %v), want a tool error with %q", tt.tool, tt.args, r.text(), r.IsError, tt.want)
		}
	}
}

// The pinned real servers through mcp serve: sequential-thinking's call
// goes through, and what mcp call refuses (below a minimum, eslint's
// empty list) is refused before it is sent.
func TestServer_ArgumentsRealServers(t *testing.T) {
	t.Parallel()
	js := testenv.PinnedJS(t)
	node := testenv.Node(t)
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "thinking", All: true}, {ID: "eslint", All: true}},
		manifests.Endpoint{ID: "thinking", Command: node, Args: []string{js["THINKING_JS"]}},
		manifests.Endpoint{ID: "eslint", Command: node, Args: []string{js["ESLINT_JS"]}})
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	ok := c.call(t, "thinking__sequentialthinking", map[string]any{"thought": "t", "nextThoughtNeeded": false, "thoughtNumber": 1, "totalThoughts": 1, "branchId": nil})
	if ok.IsError || !strings.Contains(ok.text(), `"thoughtNumber": 1`) {
		t.Errorf("sequentialthinking: %q (isError %v)", ok.text(), ok.IsError)
	}
	for name, args := range map[string]map[string]any{
		"thinking__sequentialthinking": {"thought": "t", "nextThoughtNeeded": false, "thoughtNumber": 0, "totalThoughts": 1},
		"eslint__lint_files":           {"filePaths": []string{}},
	} {
		r := c.call(t, name, args)
		if !r.IsError || !strings.Contains(r.text(), "minim") && !strings.Contains(r.text(), "minItems") {
			t.Errorf("%s %v: %q (isError %v), want refused", name, args, r.text(), r.IsError)
		}
		// The refusal gives the tool's signature, as mcp call's hint does.
		if !strings.Contains(r.text(), "; the tool's signature is "+name+"(") {
			t.Errorf("%s %v: %q, want the tool's signature", name, args, r.text())
		}
	}
}

// Arguments the schema refuses are answered as mcp call answers them, with
// the tool's signature under the name the client calls it by: a missing
// required argument, a value of the wrong type, an unknown key; and
// mcp_search's own arguments the same way.
func TestServer_ArgumentErrorsSignature(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true, Defer: []string{"post_page"}}}, testenv.FakeServer(t, testenv.ModeShapes))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	tools := c.tools(t)
	sig := func(name, start string) string {
		t.Helper()
		got := catalog.Tool{Name: name, InputSchema: tools[name].InputSchema}.Signature()
		if !strings.HasPrefix(got, start) {
			t.Fatalf("%s's signature is %q, want it to start %q", name, got, start)
		}
		return got
	}
	config := sig("fake__set_config_value", "fake__set_config_value(key: string, value?: ")
	thinking := sig("fake__sequentialthinking", "fake__sequentialthinking(nextThoughtNeeded: boolean, thought: string, ")
	search := sig(SearchTool, "mcp_search(query: string, limit?: integer)")
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fake__set_config_value", map[string]any{"value": "v"}, "fake__set_config_value: missing required argument key; the tool's signature is " + config},
		{"fake__set_config_value", map[string]any{"key": 5}, "fake__set_config_value: /key: got number, want string; the tool's signature is " + config},
		{"fake__set_config_value", map[string]any{"key": "k", "vaule": 1}, "fake__set_config_value: unknown argument vaule (did you mean value?); the tool's signature is " + config},
		{"fake__sequentialthinking", map[string]any{"thought": "t"},
			"fake__sequentialthinking: missing required argument nextThoughtNeeded, thoughtNumber, totalThoughts; the tool's signature is " + thinking},
		{SearchTool, map[string]any{}, "mcp_search: missing required argument query; the tool's signature is " + search},
		{SearchTool, map[string]any{"query": "page", "limt": 3}, "mcp_search: unknown argument limt (did you mean limit?); the tool's signature is " + search},
		{SearchTool, map[string]any{"query": "page", "limit": 50}, "mcp_search: /limit: maximum: got 50, want 20; the tool's signature is " + search},
	} {
		if r := c.call(t, tt.tool, tt.args); !r.IsError || r.text() != tt.want {
			t.Errorf("%s %v:\n got %q (isError %v)\nwant %q", tt.tool, tt.args, r.text(), r.IsError, tt.want)
		}
	}
	// A whole number written 5.0 is an integer for mcp_search too.
	if r := c.call(t, SearchTool, map[string]any{"query": "page", "limit": json.RawMessage("5.0")}); r.IsError {
		t.Errorf("mcp_search limit 5.0: %q", r.text())
	}
}
