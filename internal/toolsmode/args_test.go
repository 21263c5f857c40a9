package toolsmode

import (
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
		if r := c.call(t, name, args); !r.IsError || !strings.Contains(r.text(), "minim") && !strings.Contains(r.text(), "minItems") {
			t.Errorf("%s %v: %q (isError %v), want refused", name, args, r.text(), r.IsError)
		}
	}
}
