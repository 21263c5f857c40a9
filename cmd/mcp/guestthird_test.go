//go:build linux

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// A third user who has a shared session's MCP_SESSION is refused by its
// multiplexer, and told so in one line with exit 2 (refused), through
// every verb: not a connection reset. The session goes on serving its
// guest.
func TestSessionRefusesAThirdUser(t *testing.T) {
	g := newGuestEnv(t)
	guest, stranger := newLocalUser(t, filepath.Dir(g.shared)), newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)
	in := []string{"MCP_SESSION=" + sessionEnv(id, socket)}
	want := "mcp: error: session " + id + " is shared with another user, not with user " + stranger.Name +
		" (uid " + strconv.Itoa(stranger.UID) + "): its multiplexer serves only the user who started it and the one it was started for\n" +
		"mcp: hint: the user who started the session can start one for this user: mcp session start --agent NAME --user " + stranger.Name + "\n"
	for _, args := range [][]string{
		{"list"}, {"list", "fake"}, {"search", "echo"}, {"call", "fake.echo", "message=hi"},
		{"run", "-e", `await fake.echo({message: "hi"})`},
	} {
		r := g.as(stranger, in, append([]string{"mcp"}, args...)...)
		if r.code != exit.Usage || r.stdout != "" || !strings.HasSuffix(r.stderr, want) || strings.Count(r.stderr, "mcp: error:") != 1 {
			t.Errorf("as a third user, mcp %v: exit %d (want %d), stdout %q, stderr %q\nwant stderr ending %q", args, r.code, exit.Usage, r.stdout, r.stderr, want)
		}
	}
	if r := g.as(guest, in, "mcp", "call", "fake.echo", "message=still"); r.code != 0 || r.stdout != "still\n" {
		t.Errorf("the guest after a third user was refused: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
