package main

import (
	"fmt"
	"time"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/mux"
)

type sessionCmd struct {
	Start sessionStartCmd `cmd:"" help:"Fix an agent's surface, bind its required servers and print export MCP_SESSION=ID.\n\n  eval \"$(mcp session start --agent support)\""`
	Stop  sessionStopCmd  `cmd:"" help:"End a session.\n\n  mcp session stop 3f9c…"`
	List  sessionListCmd  `cmd:"" help:"List running sessions."`
}

type sessionStartCmd struct{}

func (c *sessionStartCmd) Run(a *app) error {
	t, cfg, err := a.config()
	if err != nil {
		return err
	}
	s := cfg.Surface
	ctx, cancel := a.context()
	defer cancel()
	st := &session.State{ID: session.NewID(), Root: t.Root, User: t.User, Agent: a.agent, Surface: s, Started: time.Now().UTC()}
	if err := session.Save(st); err != nil {
		return fmt.Errorf("saving session state: %w", err)
	}
	// The session's multiplexer binds every required server; on failure
	// it is stopped, the state removed, and nothing is left running.
	tools, err := mux.StartSession(ctx, st, mux.OpenOptions{Upstream: upstreamOptions()})
	if err != nil {
		_ = session.Remove(st.ID)
		return err
	}
	if a.globals.JSON {
		return a.writeJSON(map[string]any{"id": st.ID, "agent": st.Agent, "mode": s.Mode, "env": map[string]string{session.EnvVar: st.ID}})
	}
	fmt.Fprintf(a.stdout, "export %s=%s\n", session.EnvVar, st.ID)
	who := "the package boundary"
	if a.agent != "" {
		who = "agent " + a.agent
	}
	fmt.Fprintf(a.stderr, "mcp: session %s started for %s (mode %s, %d %s, %d required %s bound)\n",
		st.ID, who, s.Mode, len(s.Servers), plural(len(s.Servers), "server", "servers"), tools, plural(tools, "tool", "tools"))
	return nil
}

type sessionStopCmd struct {
	ID string `arg:"" help:"The session id that session start printed."`
}

func (c *sessionStopCmd) Run(a *app) error {
	if _, err := session.Load(c.ID); err != nil {
		return err
	}
	ctx, cancel := a.context()
	defer cancel()
	if err := mux.StopSession(ctx, c.ID); err != nil {
		return err
	}
	if err := session.Remove(c.ID); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "mcp: session %s stopped\n", c.ID)
	return nil
}

type sessionListCmd struct{}

func (c *sessionListCmd) Run(a *app) error {
	list, err := session.List()
	if err != nil {
		return err
	}
	if a.globals.JSON {
		type row struct {
			ID      string    `json:"id"`
			Agent   string    `json:"agent,omitempty"`
			Root    string    `json:"root"`
			Mode    string    `json:"mode"`
			Started time.Time `json:"started"`
		}
		rows := []row{}
		for _, st := range list {
			rows = append(rows, row{st.ID, st.Agent, st.Root, string(st.Surface.Mode), st.Started})
		}
		return a.writeJSON(rows)
	}
	for _, st := range list {
		agent := st.Agent
		if agent == "" {
			agent = "(package boundary)"
		}
		fmt.Fprintf(a.stdout, "%s  %s  %s  %s\n", st.ID, agent, st.Root, st.Started.Local().Format(time.DateTime))
	}
	return nil
}
