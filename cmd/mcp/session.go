package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/mux"
)

type sessionCmd struct {
	Start sessionStartCmd `cmd:"" help:"Fix an agent's surface, bind its required servers and print the line that sets MCP_SESSION=ID:UID@SOCKET in your shell.\n\n  eval \"$(mcp session start --agent support)\""`
	Stop  sessionStopCmd  `cmd:"" help:"End a session.\n\n  mcp session stop \"$MCP_SESSION\"\n  mcp session stop --all"`
	List  sessionListCmd  `cmd:"" help:"List running sessions."`
}

type sessionStartCmd struct {
	User  string        `help:"Let an agent running as this other local user (name or uid) use the session (Linux, macOS, FreeBSD; not Windows): its socket accepts that user and you, nobody else." placeholder:"USER"`
	Shell session.Shell `help:"The shell the line is for: posix (export), powershell ($env:, for | Invoke-Expression) or cmd (set, for for /f); the default is powershell on Windows, else posix." placeholder:"SHELL"`
}

func (c *sessionStartCmd) Run(a *app) error {
	if a.trustOnce {
		return &usageError{msg: "--trust is for one command, and a session outlives it",
			hint: "run `mcp trust` after reading the recipe's files, then start the session"}
	}
	if c.User != "" && !mux.GuestsSupported {
		return &usageError{msg: fmt.Sprintf("--user %.40q: %v", c.User, mux.ErrNoGuests),
			hint: "run `mcp session start` as that user instead, so the session is its own, or run the agent as you without --user"}
	}
	guest, err := session.LookupGuest(c.User)
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
	line, err := st.Line(c.Shell)
	if err != nil {
		return err
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
	fmt.Fprintln(a.stdout, line)
	who := "the package boundary"
	if a.agent != "" {
		who = "agent " + a.agent
	}
	fmt.Fprintf(a.stderr, "mcp: session %s started for %s (mode %s, %d %s, %s)\n",
		st.ID, who, s.Mode, len(s.Servers), words.Plural(len(s.Servers), "server", "servers"), s.BoundNote(tools))
	if guest != nil {
		fmt.Fprintf(a.stderr, "mcp: user %s needs only %s=%s in its environment; nobody else may use the socket\n", guest.Name, session.EnvVar, shell.Word(st.Env()))
		fmt.Fprintf(a.stderr, "mcp: in a container running as uid %d: mount %s and set %s=%s\n",
			guest.UID, shell.Word(filepath.Dir(st.Socket)), session.EnvVar, session.FormatEnv(st.ID, os.Getuid(), "MOUNT/"+filepath.Base(st.Socket)))
	}
	return nil
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
		st, err := session.Load(session.IDOf(c.ID))
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

type sessionListCmd struct{}

func (c *sessionListCmd) Run(a *app) error {
	list, err := session.List()
	if err != nil {
		return err
	}
	ctx, cancel := a.context()
	defer cancel()
	rows := []session.Row{}
	for _, st := range list {
		r := st.Row()
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
		fmt.Fprintln(a.stdout, r.Line())
	}
	return nil
}
