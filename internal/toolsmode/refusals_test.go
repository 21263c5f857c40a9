package toolsmode

import (
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// A name the server does not list is answered as mcp call answers a name
// it does not know, in words of this server rather than of a session: the
// listed names the client most likely meant, and never a name the surface
// hides or a deferred one not loaded yet. Against server-everything.
func TestServer_UnlistedNames(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "everything", All: true, Exclude: []string{"get-env"}, DeferAll: true, Eager: []string{"echo", "get-tiny-image"}},
	}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	const more = "; mcp_search finds more tools"
	unlisted := func(name string, suggest ...string) string {
		msg := name + " is not one of the tools this server lists"
		if len(suggest) > 0 {
			msg += " (did you mean " + strings.Join(suggest, " or ") + "?)"
		}
		return msg + more
	}
	for _, tt := range []struct{ name, want string }{
		{"everything__ecoh", unlisted("everything__ecoh", "everything__echo")},
		{"echo", unlisted("echo", "everything__echo")},                                                     // the upstream's own name
		{"everything.get-tiny-image", unlisted("everything.get-tiny-image", "everything__get_tiny_image")}, // as mcp call writes it
		// Excluded: neither the name nor a near one suggests it.
		{"everything__get_env", unlisted("everything__get_env")},
		{"everything__get_envv", unlisted("everything__get_envv")},
		{"get-env", unlisted("get-env")},
		// Deferred and not loaded: the same.
		{"everything__get_sum", unlisted("everything__get_sum")},
		{"everything__get_summ", unlisted("everything__get_summ")},
		{"get-sum", unlisted("get-sum")},
	} {
		if r := c.call(t, tt.name, map[string]any{}); !r.IsError || r.text() != tt.want {
			t.Errorf("%s: %q (isError %v), want %q", tt.name, r.text(), r.IsError, tt.want)
		}
	}
	// Once mcp_search has loaded it, a deferred tool is listed and can be
	// suggested.
	if r := c.call(t, SearchTool, map[string]any{"query": "add two numbers and return the sum", "limit": 1}); r.IsError {
		t.Fatalf("mcp_search: %s", r.text())
	}
	c.waitChanged(t)
	if r := c.call(t, "everything__get_summ", map[string]any{}); r.text() != unlisted("everything__get_summ", "everything__get_sum") {
		t.Errorf("after mcp_search: %q", r.text())
	}
	if r := c.call(t, "everything__get_sum", map[string]any{"a": 2, "b": 40}); r.IsError || !strings.Contains(r.text(), "42") {
		t.Errorf("get_sum after mcp_search: %q (isError %v)", r.text(), r.IsError)
	}
	// Arguments the schema refuses name the tool's signature (the docs'
	// example).
	want := "everything__echo: missing required argument message; the tool's signature is everything__echo(message: string)"
	if r := c.call(t, "everything__echo", map[string]any{}); !r.IsError || r.text() != want {
		t.Errorf("echo without a message: %q, want %q", r.text(), want)
	}
	// No word of sessions in what a client reads: the answers above, and
	// what tools/list says.
	for name, tl := range c.tools(t) {
		if strings.Contains(strings.ToLower(tl.Description+tl.Title), "session") {
			t.Errorf("%s speaks of a session: %q", name, tl.Description)
		}
	}
}

// Without deferred tools there is no mcp_search to point at.
func TestServer_UnlistedNoSearch(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true}}, testenv.FakeServer(t, testenv.ModeShapes))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	want := "fake__set_config_valeu is not one of the tools this server lists (did you mean fake__set_config_value?)"
	if r := c.call(t, "fake__set_config_valeu", map[string]any{}); !r.IsError || r.text() != want {
		t.Errorf("fake__set_config_valeu: %q, want %q", r.text(), want)
	}
}
