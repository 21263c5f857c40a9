package mux

import (
	"fmt"
	"net"
	"os/user"
	"strconv"

	"github.com/mcpsh/mcp/internal/exit"
)

// wrongListener says why the process listening on socket, at the other
// end of conn, is not host (nil when it is): this user for its own
// multiplexers, and in a session the user MCP_SESSION names, who started
// it. It is asked right after connecting, before anything is sent, so
// that nobody listening on a path a multiplexer used (a stopped
// session's, in a directory others may make again) hears a request or
// its arguments.
// A listener the system does not name is refused whatever host is (on
// Windows, which has no uids, host is -1 too).
func wrongListener(conn net.Conn, socket string, host int) *ListenerError {
	uid, known := listenerUID(conn)
	if !known {
		return &ListenerError{Socket: socket, UID: -1, Want: host}
	}
	if uid != host {
		return &ListenerError{Socket: socket, UID: uid, Want: host}
	}
	return nil
}

// ListenerError says the process listening on a multiplexer's socket runs
// as another user than the multiplexer's: someone else made the socket,
// as another local user can where a session for it listened before it
// stopped. Nothing was sent to it.
type ListenerError struct {
	Socket string
	// UID is the user that listens (-1: the system did not say, or on
	// Windows said it is not this user), Want the user that must.
	UID, Want int
	// Session is the session MCP_SESSION names, if any.
	Session string
}

// ExitCode is a refusal's: mcp refuses to talk to that socket, and
// nothing will change that but a listener of the right user (or, in a
// session, an MCP_SESSION that session start printed).
func (e *ListenerError) ExitCode() int { return exit.Usage }

func (e *ListenerError) Error() string {
	if e.UID < 0 {
		return fmt.Sprintf("the system does not say that who listens on %s is you: nothing was sent to it", e.Socket)
	}
	msg := fmt.Sprintf("%s listens on %s, not %s", userLabel(e.UID), e.Socket, userLabel(e.Want))
	if e.Session != "" {
		return msg + ", who started session " + e.Session + ": nothing was sent to it; the session has ended, or MCP_SESSION is not what session start printed"
	}
	return msg + ": it is not your multiplexer, and nothing was sent to it"
}

// userLabel names the user uid: by name when this system knows it.
func userLabel(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("user %s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
