package main

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/mux"
)

type sessionCmd struct {
	Start sessionStartCmd `cmd:"" help:"Fix an agent's surface, bind its required servers and print export MCP_SESSION=ID:UID@SOCKET.\n\n  eval \"$(mcp session start --agent support)\""`
	Stop  sessionStopCmd  `cmd:"" help:"End a session.\n\n  mcp session stop 3f9c…"`
	List  sessionListCmd  `cmd:"" help:"List running sessions."`
}

type sessionStartCmd struct {
	User string `help:"Let an agent running as this other local user (name or uid) use the session (Linux): its socket accepts that user and you, nobody else." placeholder:"USER"`
}

func (c *sessionStartCmd) Run(a *app) error {
	if a.trustOnce {
		return &usageError{msg: "--trust is for one command, and a session outlives it",
			hint: "run `mcp trust` after reading the recipe's files, then start the session"}
	}
	guest, err := lookupGuest(c.User)
	if err != nil {
		return err
	}
	t, cfg, err := a.config()
	if err != nil {
		return err
	}
	// Nothing starts for a session whose servers may not start.
	if err := cfg.Untrusted(); err != nil {
		return err
	}
	s := cfg.Surface
	ctx, cancel := a.context()
	defer cancel()
	st := &session.State{ID: session.NewID(), Root: t.Root, User: t.User, Agent: a.agent, Surface: s, Started: time.Now().UTC(), Guest: guest}
	if st.Socket, err = mux.SessionSocket(st.ID, guest); err != nil {
		return fmt.Errorf("making the session's socket directory: %w", err)
	}
	// The session's multiplexer binds every required server; on failure
	// it is stopped, the state removed, and nothing is left running.
	tools, err := mux.StartSession(ctx, st, mux.OpenOptions{Upstream: upstreamOptions()})
	if err != nil {
		_ = mux.StopSession(ctx, st) // and the directory made for a guest
		_ = session.Remove(st.ID)
		return err
	}
	if a.globals.JSON {
		out := map[string]any{"id": st.ID, "agent": st.Agent, "mode": s.Mode, "socket": st.Socket, "env": map[string]string{session.EnvVar: st.Env()}}
		if guest != nil {
			out["user"] = guest.Name
		}
		return a.writeJSON(out)
	}
	fmt.Fprintf(a.stdout, "export %s=%s\n", session.EnvVar, shell.Word(st.Env()))
	who := "the package boundary"
	if a.agent != "" {
		who = "agent " + a.agent
	}
	fmt.Fprintf(a.stderr, "mcp: session %s started for %s (mode %s, %d %s, %s)\n",
		st.ID, who, s.Mode, len(s.Servers), plural(len(s.Servers), "server", "servers"), boundNote(s, tools))
	if guest != nil {
		fmt.Fprintf(a.stderr, "mcp: user %s needs only %s=%s in its environment; nobody else may use the socket\n", guest.Name, session.EnvVar, shell.Word(st.Env()))
		fmt.Fprintf(a.stderr, "mcp: in a container running as uid %d: mount %s and set %s=%s\n",
			guest.UID, shell.Word(filepath.Dir(st.Socket)), session.EnvVar, session.FormatEnv(st.ID, os.Getuid(), "MOUNT/"+filepath.Base(st.Socket)))
	}
	return nil
}

// boundNote says how many of a surface's servers are required, which
// session start has bound, and how many tools they brought.
func boundNote(s *catalog.Surface, tools int) string {
	required := 0
	for _, srv := range s.Servers {
		if srv.Required {
			required++
		}
	}
	if required == 0 {
		return "none required"
	}
	return fmt.Sprintf("%d required %s bound with %d %s",
		required, plural(required, "server", "servers"), tools, plural(tools, "tool", "tools"))
}

// lookupGuest finds the other local user a session is for: a name or a
// uid, not the user running mcp.
func lookupGuest(name string) (*session.Guest, error) {
	if name == "" {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--user %.40q: no such local user", name)}
		}
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, &usageError{msg: fmt.Sprintf("--user %.40q: uid %q is not a number", name, u.Uid)}
	}
	if uid == os.Getuid() {
		return nil, &usageError{msg: fmt.Sprintf("--user %s: that is you; a session is yours without --user", u.Username)}
	}
	return &session.Guest{Name: u.Username, UID: uid}, nil
}

type sessionStopCmd struct {
	ID  string `arg:"" optional:"" help:"The session id that session start printed (or the whole MCP_SESSION value)."`
	All bool   `help:"Stop every session of yours."`
}

func (c *sessionStopCmd) Run(a *app) error {
	var list []*session.State
	switch {
	case c.All == (c.ID != ""):
		return &usageError{msg: "session stop takes a session id or --all", hint: "`mcp session list` shows the sessions"}
	case c.All:
		var err error
		if list, err = session.List(); err != nil {
			return err
		}
	default:
		st, err := session.Load(stopID(c.ID))
		if err != nil {
			return err
		}
		list = []*session.State{st}
	}
	ctx, cancel := a.context()
	defer cancel()
	for _, st := range list {
		if err := mux.StopSession(ctx, st); err != nil {
			return err
		}
		if err := session.Remove(st.ID); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "mcp: session %s stopped\n", st.ID)
	}
	if c.All && len(list) == 0 {
		fmt.Fprintln(a.stderr, "mcp: no session is running")
	}
	return nil
}

// stopID is the session id that session stop's argument names: the id,
// or the whole MCP_SESSION value (ID:UID@SOCKET, or the ID@SOCKET of an
// older mcp); Load refuses anything that is not an id.
func stopID(arg string) string {
	head, _, _ := strings.Cut(arg, "@")
	id, _, _ := strings.Cut(head, ":")
	return id
}

type sessionListCmd struct{}

// sessionRow is one session as session list shows it.
type sessionRow struct {
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
}

func (c *sessionListCmd) Run(a *app) error {
	list, err := session.List()
	if err != nil {
		return err
	}
	ctx, cancel := a.context()
	defer cancel()
	rows := []sessionRow{}
	for _, st := range list {
		r := sessionRow{ID: st.ID, Agent: st.Agent, Root: st.Root, Mode: string(st.Surface.Mode), Started: st.Started, Env: st.Env()}
		if st.Guest != nil {
			r.User = st.Guest.Name
		}
		// A session without a socket (no multiplexer on this system) fails
		// to dial at once.
		if status, err := mux.StatusOf(ctx, st.Socket); err == nil {
			r.Running, r.Idle = true, time.Since(status.LastRequest).Round(time.Second).Seconds()
		}
		rows = append(rows, r)
	}
	if a.globals.JSON {
		return a.writeJSON(rows)
	}
	if len(rows) == 0 {
		dir, _ := session.Dir()
		fmt.Fprintf(a.stderr, "mcp: no session is running (no session state in %s)\n", dir)
	}
	for _, r := range rows {
		agent := "agent " + r.Agent
		if r.Agent == "" {
			agent = "the package boundary"
		}
		if r.User != "" {
			agent += " for user " + r.User
		}
		state := "ended: its multiplexer is gone"
		if r.Running {
			state = "idle " + (time.Duration(r.Idle) * time.Second).String()
		}
		fmt.Fprintf(a.stdout, "%s  %s  %s  started %s  %s\n", r.ID, agent, r.Root, r.Started.Local().Format(time.DateTime), state)
	}
	return nil
}
