package session

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// GuestError refuses --user: no such user, or the user running mcp. Exit 2.
type GuestError struct{ msg string }

// Error is the refusal's one line.
func (e *GuestError) Error() string { return e.msg }

// ExitCode is exit.Usage: the command line is wrong.
func (e *GuestError) ExitCode() int { return exit.Usage }

// LookupGuest finds the other local user a session is for: a name or a
// uid, not the user running mcp; "" is none.
func LookupGuest(name string) (*Guest, error) {
	if name == "" {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return nil, &GuestError{msg: fmt.Sprintf("--user %.40q: no such local user", name)}
		}
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, &GuestError{msg: fmt.Sprintf("--user %.40q: uid %q is not a number", name, u.Uid)}
	}
	if uid == os.Getuid() {
		return nil, &GuestError{msg: fmt.Sprintf("--user %s: that is you; a session is yours without --user", u.Username)}
	}
	return &Guest{Name: u.Username, UID: uid}, nil
}

// Row is one session as session list shows it.
type Row struct {
	ID      string    `json:"id"`
	Agent   string    `json:"agent,omitempty"`
	User    string    `json:"user,omitempty"`
	Root    string    `json:"root"`
	Mode    string    `json:"mode"`
	Started time.Time `json:"started"`
	Env     string    `json:"env"`
	// Running says its multiplexer answers; Idle is then how long since
	// its last request, in seconds.
	Running bool    `json:"running"`
	Idle    float64 `json:"idleSeconds,omitempty"`
	// Direct says the session has no multiplexer (none runs on this
	// system): each call connects to its servers itself, and the session
	// runs until it is stopped.
	Direct bool `json:"direct,omitempty"`
}

// Row is the session as session list shows it, not yet asked whether it
// runs.
func (st *State) Row() Row {
	r := Row{ID: st.ID, Agent: st.Agent, Root: st.Root, Mode: string(st.Surface.Mode), Started: st.Started, Env: st.Env(), Direct: st.Socket == ""}
	if st.Guest != nil {
		r.User = st.Guest.Name
	}
	return r
}

// Line is the row's line of session list.
func (r Row) Line() string {
	agent := "agent " + r.Agent
	if r.Agent == "" {
		agent = "the package boundary"
	}
	if r.User != "" {
		agent += " for user " + r.User
	}
	state := "ended: its multiplexer is gone"
	switch {
	case r.Direct:
		state = "no multiplexer on this system: each call connects directly"
	case r.Running:
		state = "idle " + (time.Duration(r.Idle) * time.Second).String()
	}
	return fmt.Sprintf("%s  %s  %s  started %s  %s", r.ID, agent, r.Root, r.Started.Local().Format(time.DateTime), state)
}

// IDOf is the session id that session stop's argument names: the id, or
// the whole MCP_SESSION value (ID:UID@SOCKET, or the ID@SOCKET of an older
// mcp); Load refuses anything that is not an id.
func IDOf(arg string) string {
	head, _, _ := strings.Cut(arg, "@")
	id, _, _ := strings.Cut(head, ":")
	return id
}
