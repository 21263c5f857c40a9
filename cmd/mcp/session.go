package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

type sessionCmd struct {
	Start sessionStartCmd `cmd:"" help:"Fix an agent's surface, bind its required servers and print export MCP_SESSION=ID.\n\n  eval \"$(mcp session start --agent support)\""`
	Stop  sessionStopCmd  `cmd:"" help:"End a session.\n\n  mcp session stop 3f9c…"`
	List  sessionListCmd  `cmd:"" help:"List running sessions."`
}

type sessionStartCmd struct{}

// bindError says a required server could not be bound at launch.
type bindError struct {
	server string
	err    error
}

func (e *bindError) Error() string {
	return fmt.Sprintf("session not started: required server %s: %v", e.server, e.err)
}
func (e *bindError) Unwrap() error { return e.err }

func (c *sessionStartCmd) Run(a *app) error {
	root, user, err := a.locate()
	if err != nil {
		return err
	}
	if root, err = filepath.Abs(root); err != nil {
		return err
	}
	r, s, err := a.surface()
	if err != nil {
		return err
	}
	ctx, cancel := a.context()
	defer cancel()
	st := &session.State{ID: session.NewID(), Root: root, User: user, Agent: a.agent, Surface: s, Started: time.Now().UTC()}
	if err := session.Save(st); err != nil {
		return fmt.Errorf("saving session state: %w", err)
	}
	// The session's multiplexer binds every required server; on failure
	// it is stopped, the state removed, and nothing is left running.
	tools, err := a.bindSession(ctx, st, r)
	if err != nil {
		stopSession(ctx, st.ID)
		_ = session.Remove(st.ID)
		return err
	}
	if a.globals.JSON {
		return writeJSON(a.stdout, map[string]any{"id": st.ID, "agent": st.Agent, "mode": s.Mode, "env": map[string]string{sessionEnv: st.ID}})
	}
	fmt.Fprintf(a.stdout, "export %s=%s\n", sessionEnv, st.ID)
	who := "the package boundary"
	if a.agent != "" {
		who = "agent " + a.agent
	}
	fmt.Fprintf(a.stderr, "mcp: session %s started for %s (mode %s, %d %s, %d required %s bound)\n",
		st.ID, who, s.Mode, len(s.Servers), plural(len(s.Servers), "server", "servers"), tools, plural(tools, "tool", "tools"))
	return nil
}

// bindSession starts the session's multiplexer and binds the required
// servers through it. Where no multiplexer can run, it binds them
// directly, which checks them but keeps nothing warm.
func (a *app) bindSession(ctx context.Context, st *session.State, r *manifests.Recipe) (int, error) {
	var tools func(context.Context, string) ([]catalog.Tool, error)
	if mux.DaemonSupported && os.Getenv(noMuxEnv) == "" {
		c, err := a.ensureDaemon(ctx, st.ID, true, daemonSpec{})
		if err == nil {
			tools = c.Bind
		} else {
			var se *mux.StartError
			if errors.As(err, &se) && se.Config {
				return 0, err
			}
			a.warn("the multiplexer is unavailable (%s); the session will connect directly", oneLine(err))
		}
	}
	if tools == nil {
		eng := newEngine(r, st.Surface)
		defer eng.Close()
		tools = eng.Bind
	}
	n := 0
	err := bindRequired(ctx, st.Surface, func(ctx context.Context, id string) (int, error) {
		ts, err := tools(ctx, id)
		return len(ts), err
	}, &n)
	return n, err
}

// stopSession stops a session's multiplexer, if one runs, and waits until
// it has closed every upstream connection and exited.
func stopSession(ctx context.Context, id string) error {
	if !mux.DaemonSupported {
		return nil
	}
	socket, err := socketFor(id, true, daemonSpec{})
	if err != nil {
		return nil
	}
	return mux.Shutdown(ctx, socket, 10*time.Second)
}

// bindRequired binds the surface's required servers in parallel and
// returns the first failure, naming the server.
func bindRequired(ctx context.Context, s *catalog.Surface, bind func(context.Context, string) (int, error), tools *int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	counts := make([]int, len(s.Servers))
	for i, srv := range s.Servers {
		if !srv.Required {
			continue
		}
		g.Go(func() error {
			n, err := bind(gctx, srv.ID)
			if err != nil {
				if errors.Is(err, context.Canceled) && ctx.Err() == nil {
					return nil // another server failed first
				}
				return &bindError{server: srv.ID, err: err}
			}
			counts[i] = n
			return nil
		})
	}
	err := g.Wait()
	for _, n := range counts {
		*tools += n
	}
	return err
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
	if err := stopSession(ctx, c.ID); err != nil {
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
		return writeJSON(a.stdout, rows)
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
