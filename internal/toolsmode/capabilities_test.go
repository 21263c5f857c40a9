package toolsmode

import (
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// The server declares tools and nothing else, and answers nothing else:
// resources, prompts, logging and completions are method not found, not an
// empty list a client would show as the upstream's, and logging/setLevel
// is not acknowledged for logs that never come.
func TestServer_AnswersOnlyWhatItDeclares(t *testing.T) {
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", Tools: []string{"echo"}}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	if caps := c.GetServerCapabilities(); caps.Resources != nil || caps.Prompts != nil || caps.Logging != nil || caps.Tools == nil {
		t.Errorf("capabilities = %+v, want tools only", caps)
	}
	for _, m := range []struct {
		method string
		params any
	}{
		{"resources/list", map[string]any{}},
		{"resources/templates/list", map[string]any{}},
		{"resources/read", map[string]any{"uri": "file:///etc/passwd"}},
		{"prompts/list", map[string]any{}},
		{"prompts/get", map[string]any{"name": "x"}},
		{"logging/setLevel", map[string]any{"level": "debug"}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "x"}, "argument": map[string]any{"name": "a", "value": "b"}}},
	} {
		_, err := c.rawE(m.method, m.params)
		if err == nil || !strings.Contains(err.Error(), "JSON-RPC error -32601") {
			t.Errorf("%s: %v, want method not found", m.method, err)
		}
	}
	if _, err := c.rawE("ping", map[string]any{}); err != nil {
		t.Errorf("ping: %v", err)
	}
	if got := names(c.tools(t)); len(got) != 1 || got[0] != "fake__echo" {
		t.Errorf("tools/list = %v", got)
	}
}

// What an upstream says about how to use it reaches the client, under the
// server's name, for servers of the surface only.
func TestServer_PassesOnInstructions(t *testing.T) {
	withText := func(id, text string) manifests.Endpoint {
		ep := withID(testenv.FakeServer(t, testenv.ModeDefault), id)
		env := map[string]string{"FAKE_INSTRUCTIONS": text}
		for k, v := range ep.Env {
			env[k] = v
		}
		ep.Env = env
		return ep
	}
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "notes-db", Tools: []string{"echo"}}, {ID: "quiet", Tools: []string{"echo"}}},
		withText("notes-db", "Search before you write."), withID(testenv.FakeServer(t, testenv.ModeDefault), "quiet"),
		withText("outside", "Never seen."))
	s, _ := newServer(t, eng, Options{})
	c := inProcess(t, s)
	want := "Server notes-db (its tools are named notes_db__TOOL):\nSearch before you write."
	if c.init == nil || c.init.Instructions != want {
		t.Errorf("instructions = %q, want %q", c.init.Instructions, want)
	}
}
