//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux"
)

// session start --user refuses a TMPDIR the other user could not reach,
// and a relative one, before anything starts: the other user would only
// ever read "the session has ended".
func TestSessionStartChecksTheGuestCanReach(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	closed := filepath.Join(filepath.Dir(g.shared), "closed")
	mkdir(t, filepath.Join(closed, "tmp"))
	if err := os.Chmod(filepath.Join(closed, "tmp"), 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	r := g.run([]string{"TMPDIR=" + filepath.Join(closed, "tmp")}, "session", "start", "--agent", "narrow", "--user", guest.Name)
	if r.code != exit.Usage || !strings.Contains(r.stderr, "user "+guest.Name+" cannot reach the session's socket: it may not pass through "+closed+" (mode 0700)") ||
		!strings.Contains(r.stderr, "mcp: hint: run session start with TMPDIR set to a directory every user may pass through") {
		t.Errorf("session start with a TMPDIR the guest cannot reach: exit %d, stderr %q", r.code, r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(closed, "tmp", "mcp-session-*")); len(left) > 0 {
		t.Errorf("the refused session left %v", left)
	}
	if r := g.run([]string{"TMPDIR=relative/tmp"}, "session", "start", "--agent", "narrow", "--user", guest.Name); r.code != exit.Usage ||
		!strings.Contains(r.stderr, `TMPDIR="relative/tmp" is not an absolute path`) {
		t.Errorf("session start with a relative TMPDIR: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := g.run(nil, "session", "list"); strings.Contains(r.stdout, "narrow") {
		t.Errorf("a refused session is listed:\n%s", r.stdout)
	}
}

// Inside a session the multiplexer is no command: `mcp __mux` is refused
// while the session's multiplexer runs and after it has gone, so an agent
// never starts one from its own environment; nor does a forged launch
// secret start one.
func TestSessionMuxOnlyFromSessionStart(t *testing.T) {
	m := newMuxEnv(t)
	env := m.startSession("narrow")
	in := []string{"MCP_SESSION=" + env}
	socket := m.sessionSocket(env)
	r := m.run(in, mux.Arg)
	if r.code != exit.Usage || !strings.Contains(r.stderr, "mcp: error: mcp "+mux.Arg+": administrative commands") {
		t.Errorf("mcp %s in a session: exit %d, stderr %q", mux.Arg, r.code, r.stderr)
	}
	// The session's multiplexer dies; the state stays.
	if err := syscall.Kill(m.status(socket).PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !mux.WaitGone(socket, 10*time.Second) {
		t.Fatal("the session's multiplexer did not die")
	}
	for _, extra := range [][]string{nil, {"MCP_MUX_LAUNCH=0123456789abcdef"}, {"MCP_MUX_LAUNCH_FD=3"}} {
		// A multiplexer that started would serve until killed.
		cmd := m.command(append(in, extra...), mux.Arg)
		timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
		r := runProcess(t, cmd)
		timer.Stop()
		if r.code == 0 || mux.Running(socket) {
			t.Fatalf("mcp %s in a session whose multiplexer died (%v): exit %d, running %v, stderr %q", mux.Arg, extra, r.code, mux.Running(socket), r.stderr)
		}
		if !strings.Contains(r.stderr, "administrative commands") && !strings.Contains(r.stderr, "only session start starts a session's multiplexer") {
			t.Errorf("mcp %s (%v): stderr %q", mux.Arg, extra, r.stderr)
		}
	}
	if r := m.run(in, "call", "fake.echo", "message=hi"); r.code != exit.Upstream {
		t.Errorf("a call in the session whose multiplexer died: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A running session serves what it started with: a state file edited to
// name another recipe, agent or surface is refused on the next reload,
// and nothing of the other recipe is reached.
func TestSessionStateEditIsRefused(t *testing.T) {
	m := newMuxEnv(t)
	env := m.startSession("narrow")
	in := []string{"MCP_SESSION=" + env}
	id, _ := sessionParts(t, env)

	// Another recipe of the user's, trusted, whose server says who it is.
	other := filepath.Join(filepath.Dir(m.root), "other")
	writeFile(t, filepath.Join(other, "package.json"), `{"name": "other", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "fake", "tools": {"include": ["*"]}}]}}}`)
	writeFile(t, filepath.Join(other, "mcp.json"), `{"mcpServers": {"fake": {"command": "fake-server", "env": {"FAKE_EVENTS": "`+m.events+`", "WHO": "the other recipe"}}}}`)
	if r := m.run(nil, "trust", other); r.code != 0 {
		t.Fatalf("trust %s: %q", other, r.stderr)
	}
	statePath := filepath.Join(m.envValue("XDG_CACHE_HOME"), "mcp", "sessions", id+".json")
	data, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	st["root"] = other
	st["agent"] = ""
	st["surface"] = map[string]any{"mode": "cli", "servers": []any{map[string]any{"id": "fake", "all": true}}}
	edited, _ := json.Marshal(st)
	if err := os.WriteFile(statePath, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	// Trusting again changes the trust store, which reloads the session's
	// multiplexer on its next request.
	m.must("trust", other)
	r := m.run(in, "call", "fake.getenv", "name=WHO")
	if r.code == 0 || strings.Contains(r.stdout, "other recipe") {
		t.Errorf("the edited state reached the other recipe: exit %d, stdout %q", r.code, r.stdout)
	}
	r = m.run(in, "call", "fake.echo", "message=hi")
	if r.code != exit.Config || !strings.Contains(r.stderr, "session "+id+": its state file changed since it started") {
		t.Errorf("a call after the state file was edited: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Put back as it was, the session serves again.
	if err := os.WriteFile(statePath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	m.must("trust", other)
	if r := m.run(in, "call", "fake.echo", "message=back"); r.code != 0 || r.stdout != "back\n" {
		t.Errorf("a call after the state was put back: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A TMPDIR others may write that is not sticky is no place for a
// session's socket, nor for the user's own multiplexers: whoever can write
// it could rename the directory made there and put one of their own in its
// place, with links to the host's files where the lock and log go.
func TestSocketDirUnderAWritableTMPDIR(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	open := filepath.Join(filepath.Dir(g.shared), "open")
	mkdir(t, open)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	want := "which is writable by group or others"
	r := g.run([]string{"TMPDIR=" + open}, "session", "start", "--agent", "narrow", "--user", guest.Name)
	if r.code != exit.Usage || !strings.Contains(r.stderr, want) {
		t.Errorf("session start --user under a TMPDIR others may write: exit %d, stderr %q", r.code, r.stderr)
	}
	r = g.run([]string{"TMPDIR=" + open}, "session", "start", "--agent", "narrow")
	if r.code != exit.Usage || !strings.Contains(r.stderr, want) {
		t.Errorf("session start under a TMPDIR others may write: exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(open); len(entries) > 0 {
		t.Errorf("mcp made %v in a TMPDIR others may write", entries)
	}
	// Sticky, as /tmp is, it is a place for them.
	if err := os.Chmod(open, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	r = g.run([]string{"TMPDIR=" + open}, "session", "start", "--agent", "narrow", "--user", guest.Name)
	if r.code != 0 {
		t.Fatalf("session start --user under a sticky TMPDIR: exit %d, stderr %q", r.code, r.stderr)
	}
	env, _ := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	g.run(nil, "session", "stop", env)
}
