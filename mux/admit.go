package mux

import (
	"encoding/json"
	"fmt"
	"net"
	"os/user"
	"strconv"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// NotAdmittedError says the multiplexer refused a client because of the
// user it runs as: a session's multiplexer serves the user who started it
// and the one user it was started for (--user), and nobody else. It is
// written to the refused connection, so that the client says so rather
// than that the connection was reset.
type NotAdmittedError struct {
	// UID is the refused client's user, as the kernel names it, and Name
	// its name where the system knows it.
	UID  int    `json:"uid"`
	Name string `json:"name,omitempty"`
	// Session is the session the multiplexer serves ("": none).
	Session string `json:"session,omitempty"`
}

// ExitCode is a refusal's: nothing this user does changes it.
func (e *NotAdmittedError) ExitCode() int { return exit.Usage }

func (e *NotAdmittedError) Error() string {
	who := fmt.Sprintf("uid %d", e.UID)
	if e.Name != "" {
		who = fmt.Sprintf("user %s (uid %d)", e.Name, e.UID)
	}
	if e.Session == "" {
		return "the multiplexer serves only the user it runs as, not " + who
	}
	return fmt.Sprintf("session %s is shared with another user, not with %s: its multiplexer serves only the user who started it and the one it was started for", e.Session, who)
}

// User is how a command names the refused user: by name, else by uid.
func (e *NotAdmittedError) User() string {
	if e.Name != "" {
		return e.Name
	}
	return strconv.Itoa(e.UID)
}

// maxRefusing bounds the refused connections being told why at once; one
// over it is closed without a word, so that a user who connects without
// end costs the multiplexer a bounded set of goroutines.
const maxRefusing = 8

// refuse tells the client on conn, of user uid, that it is not admitted,
// and closes the connection. The client's request is not read: the
// answer goes first, and the client reads it even when its own write
// failed because the connection was closed.
func (d *Multiplexer) refuse(conn net.Conn, uid int, known bool) {
	d.refused.note("refused a client of another user", "uid", uid)
	if !known {
		conn.Close()
		return
	}
	select {
	case d.refusing <- struct{}{}:
	default:
		conn.Close()
		return
	}
	go func() {
		defer func() { <-d.refusing }()
		defer conn.Close()
		e := &NotAdmittedError{UID: uid, Session: d.opts.Session}
		if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			e.Name = u.Username
		}
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		_ = json.NewEncoder(conn).Encode(&response{Error: encodeError(e)})
	}()
}
