//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The variables that say which multiplexer mcp uses (MCP_SESSION,
// MCP_MUX_SPEC, MCP_NO_MUX) are mcp's own: a stdio server does not
// inherit them, whether mcp connects directly, through the recipe's
// multiplexer or in a session, so a server that runs mcp itself is not
// inside the session or on the host's recipe. A server whose env sets one
// explicitly still gets it.
func TestServerEnvLacksSelectors(t *testing.T) {
	m := newMuxEnv(t)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "fake": {"command": "fake-server"},
  "explicit": {"command": "fake-server", "env": {"MCP_NO_MUX": "kept", "MCP_SESSION": "kept too"}}}}`)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "fake", "tools": {"include": ["getenv"]}}, {"id": "explicit", "tools": {"include": ["getenv"]}}]}}}`)
	m.trust()
	id := m.startSession("")
	t.Cleanup(func() { m.run(nil, "session", "stop", id) })
	getenv := func(env []string, server, name string) string {
		t.Helper()
		r := m.run(env, "call", server+".getenv", "name="+name)
		if r.code != 0 {
			t.Fatalf("mcp call %s.getenv name=%s: exit %d, stderr %q", server, name, r.code, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	for _, way := range []struct {
		name string
		env  []string
	}{{"directly", []string{"MCP_NO_MUX=1"}}, {"through the multiplexer", nil}, {"in a session", []string{"MCP_SESSION=" + id}}} {
		for _, name := range []string{"MCP_SESSION", "MCP_MUX_SPEC", "MCP_NO_MUX"} {
			if got := getenv(way.env, "fake", name); got != "" {
				t.Errorf("%s, the server's %s = %q, want it unset", way.name, name, got)
			}
		}
		if got := getenv(way.env, "explicit", "MCP_NO_MUX"); got != "kept" {
			t.Errorf("%s, the server's MCP_NO_MUX, set by its env, = %q, want kept", way.name, got)
		}
		if got := getenv(way.env, "explicit", "MCP_SESSION"); got != "kept too" {
			t.Errorf("%s, the server's MCP_SESSION, set by its env, = %q, want kept too", way.name, got)
		}
	}
}
