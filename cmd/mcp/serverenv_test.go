//go:build unix

package main

import (
	"os"
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

// A stdio server gets the base set, what its entry declares and what it
// passes on, whichever way mcp reaches it: not the host's tokens, nor a
// variable another server's entry reads. It used to inherit the whole
// environment of the shell that started mcp or the session.
func TestServerEnvIsDeclared(t *testing.T) {
	m := newMuxEnv(t)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "fake": {"command": "fake-server", "passEnv": ["MCP_TEST_PASSED_*"]},
  "other": {"command": "fake-server", "env": {"OTHER_KEY": "${OTHER_SECRET}"}}}}`)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "fake", "tools": {"include": ["getenv"]}}, {"id": "other", "tools": {"include": ["getenv"]}}]}}}`)
	for _, agent := range []string{"narrow", "sleeper"} {
		if err := os.Remove(filepath.Join(m.root, "agents", agent+".yaml")); err != nil {
			t.Fatal(err)
		}
	}
	m.trust()
	host := []string{"GITHUB_TOKEN=ghp_host0secret0value", "AWS_SECRET_ACCESS_KEY=host-aws-secret",
		"OTHER_SECRET=other-server-secret", "MCP_TEST_PASSED_ONE=passed", "TERM_SESSION_ID=tab"}
	r := m.run(host, "session", "start")
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start: exit %d, %q", r.code, r.stderr)
	}
	t.Cleanup(func() { m.run(nil, "session", "stop", env) })
	for _, way := range []struct {
		name string
		env  []string
	}{{"directly", append([]string{"MCP_NO_MUX=1"}, host...)}, {"through the multiplexer", host}, {"in a session", []string{"MCP_SESSION=" + env}}} {
		for name, want := range map[string]string{"GITHUB_TOKEN": "", "AWS_SECRET_ACCESS_KEY": "", "OTHER_SECRET": "",
			"TERM_SESSION_ID": "", "MCP_TEST_PASSED_ONE": "passed"} {
			r := m.run(way.env, "call", "fake.getenv", "name="+name)
			if got := strings.TrimSpace(r.stdout); r.code != 0 || got != want {
				t.Errorf("%s, the server's %s = %q (exit %d, %q), want %q", way.name, name, got, r.code, r.stderr, want)
			}
		}
		if r := m.run(way.env, "call", "other.getenv", "name=OTHER_KEY"); r.code != 0 || strings.TrimSpace(r.stdout) != "other-server-secret" {
			t.Errorf("%s, the server's declared OTHER_KEY did not arrive: exit %d, %q %q", way.name, r.code, r.stdout, r.stderr)
		}
	}
	r = m.run(host, "check")
	out := r.stdout
	if r.code != 0 || !strings.Contains(out, "    env: base ") || !strings.Contains(out, "; passed MCP_TEST_PASSED_ONE") || !strings.Contains(out, "; declared OTHER_KEY") {
		t.Errorf("mcp check does not name the variables each server gets:\n%s", out)
	}
	if strings.Contains(out, "GITHUB_TOKEN") {
		t.Errorf("mcp check names a variable no server gets:\n%s", out)
	}
}

// A server that fails to start without a credential it used to inherit
// gets a hint naming the variable, and how to pass it on.
func TestServerEnvWithheldHint(t *testing.T) {
	m := newMuxEnv(t)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {"fake": {"command": "fake-server", "env": {"FAKE_EXIT_AT_START": "1"}}}}`)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "fake", "tools": {"include": ["*"]}}]}}}`)
	m.trust()
	for _, extra := range [][]string{{"MCP_NO_MUX=1"}, nil} {
		r := m.run(append([]string{"FAKE_API_TOKEN=t0ken"}, extra...), "call", "fake.echo", "message=x")
		want := `mcp: hint: servers get only a base environment and what their entry declares: fake did not get FAKE_API_TOKEN; pass one with "env": {"FAKE_API_TOKEN": "${FAKE_API_TOKEN}"} or "passEnv": ["FAKE_API_TOKEN"] in its entry`
		if r.code != 4 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant the hint %q", extra, r.code, r.stderr, want)
		}
		if strings.Contains(r.stderr, "t0ken") {
			t.Errorf("the hint shows the variable's value:\n%s", r.stderr)
		}
	}
}
