//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// A running multiplexer never answers from an older configuration than
// the one on disk: a call right after an edit, with no wait for the
// watcher, gets the edited surface, each time.
func TestMuxSeesAnEditAtOnce(t *testing.T) {
	m := newMuxEnv(t)
	m.must("--agent", "narrow", "call", "fake.echo", "message=hi")
	sock := m.socket("narrow")
	pid := m.status(sock).PID
	agent := filepath.Join(m.root, "agents", "narrow.yaml")
	for round := range 3 {
		writeFile(t, agent, "mcp:\n  servers:\n    fake:\n      include: [echo, getenv]\n")
		if r := m.run(nil, "--agent", "narrow", "call", "fake.getenv", "name=FAKE_EVENTS"); r.code != 0 || strings.TrimSpace(r.stdout) != m.events {
			t.Fatalf("round %d, right after widening: exit %d, stdout %q, stderr %q", round, r.code, r.stdout, r.stderr)
		}
		writeFile(t, agent, "mcp:\n  servers:\n    fake:\n      include: [echo]\n")
		m.expect(exit.NotAvailable, "fake.getenv is not available", "--agent", "narrow", "call", "fake.getenv", "name=HOME")
	}
	if got := m.status(sock).PID; got != pid {
		t.Errorf("the multiplexer was restarted (%d, was %d) instead of reloaded", got, pid)
	}
}
