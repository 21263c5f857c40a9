//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A guest that may call a server's getenv reads none of the host's
// secrets: the session's servers get the base set and what their entries
// declare, not the environment of the shell that started the session.
// (A guest of server-everything's get-env read the host's GITHUB_TOKEN
// and AWS_SECRET_ACCESS_KEY.)
func TestGuestReadsNoHostSecret(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	secrets := []string{"GITHUB_TOKEN=ghp_host0secret0value", "AWS_SECRET_ACCESS_KEY=host-aws-secret0value"}
	r := g.run(append([]string{"TMPDIR=" + g.shared}, secrets...), "session", "start", "--agent", "sleeper", "--user", guest.Name)
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start --user: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	t.Cleanup(func() { g.run(nil, "session", "stop", env) })
	in := []string{"MCP_SESSION=" + env}
	if r := g.as(guest, in, "mcp", "call", "fake.getenv", "name=PATH"); r.code != 0 || strings.TrimSpace(r.stdout) == "" {
		t.Fatalf("the guest's getenv PATH: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, kv := range secrets {
		name, value, _ := strings.Cut(kv, "=")
		r := g.as(guest, in, "mcp", "call", "fake.getenv", "name="+name)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "" || strings.Contains(r.stdout+r.stderr, value) {
			t.Errorf("the guest read the host's %s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
}
