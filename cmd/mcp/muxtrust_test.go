//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// A running multiplexer follows trust: forgetting the recipe counts from
// the very next request and stops its servers, trusting it again too, and
// an edited manifest is refused once the multiplexer has reloaded it.
func TestMuxFollowsTrust(t *testing.T) {
	m := newMuxEnv(t)
	m.must("call", "fake.echo", "message=hi")
	sock := m.socket("")
	mux := m.status(sock).PID
	server := m.serverPID(sock, "fake")

	m.must("trust", "--forget")
	m.expect(exit.Config, "mcp: error: server fake comes from "+m.realRoot()+", which you have not trusted", "call", "fake.echo", "message=x")
	if !eventually(10*time.Second, func() bool { return gone(server) }) {
		t.Error("the server of a forgotten recipe is still running")
	}
	// An overview is not a failure; naming the server is.
	if r := m.run(nil, "list"); r.code != 0 || !strings.Contains(r.stdout, "fake  untrusted\n") ||
		!strings.Contains(r.stderr, "mcp: hint: `mcp trust "+m.realRoot()+"` would allow 2 servers to start: fake, other\n") {
		t.Errorf("list: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	m.expect(exit.Config, "which you have not trusted", "list", "fake")
	m.trust()
	m.must("call", "fake.echo", "message=again")
	if got := m.status(sock).PID; got != mux {
		t.Errorf("the multiplexer was restarted (%d, was %d) instead of following trust", got, mux)
	}

	server = m.serverPID(sock, "fake")
	writeFile(t, filepath.Join(m.root, "mcp.json"), strings.Replace(muxManifest, `"other": {"command": "fake-server",`,
		`"other": {"command": "fake-server", "args": ["edited"],`, 1))
	if !eventually(10*time.Second, func() bool {
		r := m.run(nil, "call", "fake.echo", "message=x")
		return r.code == exit.Config && strings.Contains(r.stderr, "which changed since you trusted it (mcp.json)")
	}) {
		t.Fatal("an edited manifest was not refused")
	}
	if !eventually(10*time.Second, func() bool { return gone(server) }) {
		t.Error("the server of a changed recipe is still running")
	}

	// Editing an agent file does not untrust the recipe.
	m.trust()
	before := m.status(sock).Reloads
	writeFile(t, filepath.Join(m.root, "agents", "narrow.yaml"), "mcp:\n  servers:\n    fake:\n      include: [echo, getenv]\n")
	if !eventually(10*time.Second, func() bool { return m.status(sock).Reloads > before }) {
		t.Fatal("the multiplexer did not reload after the agent file changed")
	}
	m.must("call", "fake.echo", "message=still")
}

// A session's multiplexer follows trust too: a session whose recipe
// changed cannot start its servers until the host trusts it again.
func TestSessionFollowsTrust(t *testing.T) {
	m := newMuxEnv(t)
	id := m.startSession("")
	defer m.run(nil, "session", "stop", id)
	in := []string{"MCP_SESSION=" + id}
	if r := m.run(in, "call", "fake.echo", "message=hi"); r.code != 0 {
		t.Fatalf("in the session: exit %d, %q", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(m.root, ".pi", "mcp.local.json"), `{"mcpServers": {"fake": {"command": "fake-server"}}}`)
	if !eventually(10*time.Second, func() bool {
		r := m.run(in, "call", "fake.echo", "message=x")
		return r.code == exit.Config && strings.Contains(r.stderr, "changed since you trusted it (.pi/mcp.local.json)") &&
			strings.Contains(r.stderr, "mcp: hint: outside the session, run `mcp trust "+m.realRoot()+"` after reading its files")
	}) {
		t.Fatal("the session's servers started from a changed recipe")
	}
	m.trust()
	if r := m.run(in, "call", "fake.echo", "message=back"); r.code != 0 || r.stdout != "back\n" {
		t.Errorf("after trusting again: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}

// realRoot is the recipe's directory as the trust store names it.
func (m *muxEnv) realRoot() string {
	m.t.Helper()
	p, err := filepath.EvalSymlinks(m.root)
	if err != nil {
		m.t.Fatal(err)
	}
	return p
}
