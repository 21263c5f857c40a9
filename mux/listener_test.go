//go:build linux

package mux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

func init() { localuser.ListenerMain() }

// squat has another local user listen on a socket in a directory of its
// own, as one could where a multiplexer's socket was, and returns the
// socket and the listener.
func squat(t *testing.T) (*localuser.User, string, *localuser.Listener) {
	t.Helper()
	u := localuser.New(t)
	dir, err := os.MkdirTemp("", "mcp-squat-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "d")
	if err := os.Mkdir(own, 0o755); err != nil {
		t.Fatal(err)
	}
	u.Chown(t, own)
	socket := filepath.Join(own, "mux.sock")
	return u, socket, u.Listen(t, socket)
}

// A client asks the kernel who listens on the socket before it sends
// anything: a socket another user listens on is refused, exit 2, naming
// the socket and that user, by Dial (Ensure's), by a client that dials
// as it sends (StatusOf) and by a session's client, and the listener
// receives nothing.
func TestClientChecksListener(t *testing.T) {
	u, socket, l := squat(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	refused := func(what string, err error) {
		t.Helper()
		if err == nil || exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "user "+u.Name+" (uid") || !strings.Contains(err.Error(), "listens on "+socket) {
			t.Errorf("%s of a socket %s listens on: %v (exit %d)", what, u.Name, err, exit.Code(err))
		}
	}
	c, err := Dial(ctx, socket)
	refused("Dial", err)
	if err == nil {
		_, err = c.Status(ctx)
		refused("Status", err)
	}
	_, err = StatusOf(ctx, socket)
	refused("StatusOf", err)
	// A session's client, whose MCP_SESSION names this user as its host.
	id := session.NewID()
	tgt, err := SessionEnvTarget(session.FormatEnv(id, os.Getuid(), socket))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tgt.sessionClient(ctx, OpenOptions{})
	refused("a session's client", err)
	var le *ListenerError
	if !errors.As(err, &le) || le.Session != id || !strings.Contains(err.Error(), "who started session "+id) {
		t.Errorf("a session's client: %v, want a *ListenerError naming session %s", err, id)
	}
	// The check is of the user named, not of anyone but this one: a
	// value naming the user who listens connects.
	tgt.host = u.UID
	c, err = tgt.sessionClient(ctx, OpenOptions{})
	if err != nil {
		t.Errorf("a session's client of the user who listens: %v", err)
	} else {
		c.Close()
	}
	if conns, data := l.Received(t); conns < 4 || data != "" {
		t.Errorf("the listener accepted %d connections and received %q, want 4 or more and nothing", conns, data)
	}
}
