package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/toolsmode"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/mux"
)

// serveCmd is tools mode: one stdio MCP server for one agent. --agent is a
// host flag, so it lands in a.agent.
type serveCmd struct{}

func (serveCmd) Run(a *app) error {
	if a.agent == "" {
		return &usageError{
			msg:  "mcp serve needs --agent NAME: it serves one agent's tools",
			hint: "`mcp check` prints each agent's surface and mode",
		}
	}
	_, cfg, err := a.config()
	if err != nil {
		return err
	}
	if err := cfg.Untrusted(); err != nil {
		return err
	}
	s := cfg.Surface
	if s.Mode != catalog.ModeTools {
		return &usageError{
			msg:  (&toolsmode.ModeError{Agent: s.Agent, Mode: s.Mode}).Error(),
			hint: fmt.Sprintf("give the agent `mode: tools` in its mcp block, or run it in cli mode with `mcp session start --agent %s`", a.agent),
		}
	}
	// Requests for input go to the client when it can answer them.
	relay := toolsmode.NewRelay()
	opts := relay.Upstream(upstreamOptions())
	opts.OnWarning = func(line string) { a.warn("%s", line) }
	eng := mux.NewEngineFor(cfg, opts)
	defer eng.Close()
	// The server lives until its client closes stdin or a signal stops it;
	// --timeout bounds start-up and each upstream call, not the server.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := ctx, context.CancelFunc(func() {})
	if a.globals.Timeout > 0 {
		startCtx, cancel = context.WithTimeout(ctx, a.globals.Timeout)
	}
	defer cancel()
	// A required server that cannot be bound fails the launch, as it does
	// for a session.
	if _, err := mux.BindRequired(startCtx, s, eng); err != nil {
		return err
	}
	srv, err := toolsmode.New(startCtx, eng, toolsmode.Options{
		Name:        "mcp",
		Version:     build.Number(),
		CallTimeout: a.globals.Timeout,
		Warn:        func(msg string) { a.warn("%s", msg) },
		ErrorLog:    a.stderr,
		Relay:       relay,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	cancel()
	active := srv.Active()
	fmt.Fprintf(a.stderr, "mcp: serving agent %s in tools mode: %d %s at start, %d deferred\n",
		a.agent, len(active), words.Plural(len(active), "tool", "tools"), srv.Deferred())
	return srv.ServeStdio(ctx, a.stdin, a.out)
}
