//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

func init() { localuser.ListenerMain() }

// startShared starts a session of agent narrow that guest may use, in a
// TMPDIR where every user may make a directory (as in /tmp), and returns
// the MCP_SESSION value it printed and its socket.
func (g *guestEnv) startShared(guest *localUser) (env, socket string) {
	g.t.Helper()
	if err := os.Chmod(g.shared, 0o777|os.ModeSticky); err != nil {
		g.t.Fatal(err)
	}
	r := g.run([]string{"TMPDIR=" + g.shared}, "session", "start", "--agent", "narrow", "--user", guest.Name)
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		g.t.Fatalf("session start --user: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	_, socket = sessionParts(g.t, env)
	return env, socket
}

// refusedListener checks that mcp refused a listener that is not the one
// MCP_SESSION names: exit 2, naming the socket and who listens.
func refusedListener(t *testing.T, who string, r result, listener, socket string) {
	t.Helper()
	if r.code != exit.Usage || !strings.Contains(r.stderr, "user "+listener+" (uid") || !strings.Contains(r.stderr, "listens on "+socket) {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming user %s listening on %s", who, r.code, r.stdout, r.stderr, listener, socket)
	}
}

// After session stop, another local user makes the session's socket
// directory again and listens where its multiplexer did. The host's shell
// and the guest's, which still hold MCP_SESSION, ask the kernel who
// listens, refuse that user (exit 2) and send it nothing: not the
// request of a list, not the arguments of a call.
func TestStoppedSessionSocketSquatted(t *testing.T) {
	g := newGuestEnv(t)
	guest, squatter := newLocalUser(t, filepath.Dir(g.shared)), newLocalUser(t, filepath.Dir(g.shared))
	env, socket := g.startShared(guest)
	in := []string{"MCP_SESSION=" + env}
	if r := g.run(in, "call", "fake.echo", "message=before"); r.code != 0 || r.stdout != "before\n" {
		t.Fatalf("the host's shell in the session: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := g.run(nil, "session", "stop", env); r.code != 0 {
		t.Fatalf("session stop: exit %d, %q", r.code, r.stderr)
	}
	l := squatter.Listen(t, socket)
	refusedListener(t, "the host's mcp list", g.run(in, "list"), squatter.Name, socket)
	refusedListener(t, "the host's mcp call", g.run(in, "call", "fake.echo", "message=secret"), squatter.Name, socket)
	refusedListener(t, "the guest's mcp list", g.as(guest, in, "mcp", "list"), squatter.Name, socket)
	refusedListener(t, "the guest's mcp call", g.as(guest, in, "mcp", "call", "fake.echo", "message=secret"), squatter.Name, socket)
	if conns, data := l.Received(t); conns < 4 || data != "" {
		t.Errorf("the squatter accepted %d connections and received %q; want 4 or more, and nothing", conns, data)
	}
}

// MCP_SESSION names the user who started the session, and a client in
// the session, the guest's or the host's, talks only to a listener of
// that user: a value naming another uid is refused on the session's own
// socket, and the guest's client refuses a listener of its own on a path
// MCP_SESSION names, sending it nothing.
func TestSessionClientChecksNamedHost(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	env, socket := g.startShared(guest)
	t.Cleanup(func() { g.run(nil, "session", "stop", env) })
	id, _ := sessionParts(t, env)
	host := fmt.Sprintf("user root (uid %d)", os.Getuid())
	if r := g.as(guest, []string{"MCP_SESSION=" + env}, "mcp", "call", "fake.echo", "message=hi"); r.code != 0 || r.stdout != "hi\n" {
		t.Fatalf("the guest with the value session start printed: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	forged := []string{fmt.Sprintf("MCP_SESSION=%s:%d@%s", id, guest.UID, socket)}
	for who, r := range map[string]result{
		"the guest": g.as(guest, forged, "mcp", "call", "fake.echo", "message=hi"),
		"the host":  g.run(forged, "call", "fake.echo", "message=hi"),
	} {
		if r.code != exit.Usage || !strings.Contains(r.stderr, host+" listens on "+socket) {
			t.Errorf("%s with MCP_SESSION naming uid %d: exit %d, stdout %q, stderr %q", who, guest.UID, r.code, r.stdout, r.stderr)
		}
	}
	own := filepath.Join(guest.home, "own", "mux.sock")
	l := guest.User.Listen(t, own)
	named := []string{fmt.Sprintf("MCP_SESSION=%s:%d@%s", id, os.Getuid(), own)}
	refusedListener(t, "the guest on a socket of its own", g.as(guest, named, "mcp", "call", "fake.echo", "message=secret"), guest.Name, own)
	if conns, data := l.Received(t); conns < 1 || data != "" {
		t.Errorf("the guest's own listener accepted %d connections and received %q; want 1 or more, and nothing", conns, data)
	}
}
