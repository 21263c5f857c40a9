package main

import (
	"fmt"
	"time"

	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/mux"
)

type daemonCmd struct {
	Status daemonStatusCmd `cmd:"" help:"List the running multiplexers, what each serves and its upstream connections."`
	Stop   daemonStopCmd   `cmd:"" help:"Stop the multiplexer of this recipe and agent, or with --all every one outside a session.\n\n  mcp daemon stop --all"`
}

type daemonStatusCmd struct{}

type daemonStopCmd struct {
	All bool `help:"Stop every multiplexer outside a session (session stop ends a session's)."`
}

func (c *daemonStatusCmd) Run(a *app) error {
	ctx, cancel := a.context()
	defer cancel()
	ms, err := mux.List(ctx)
	if err != nil {
		return err
	}
	if a.globals.JSON {
		rows := []*mux.Status{}
		for _, m := range ms {
			rows = append(rows, m.Status)
		}
		return a.writeJSON(rows)
	}
	if len(ms) == 0 {
		fmt.Fprintln(a.stderr, "mcp: no multiplexer is running")
		return nil
	}
	for _, m := range ms {
		m.Status.WriteText(a.stdout, time.Now())
	}
	return nil
}

func (c *daemonStopCmd) Run(a *app) error {
	ctx, cancel := a.context()
	defer cancel()
	var t mux.Target
	if !c.All {
		var err error
		if t, err = a.target(); err != nil {
			return err
		}
	}
	n, err := mux.StopHost(ctx, t, c.All)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintln(a.stderr, "mcp: no multiplexer to stop")
		return nil
	}
	fmt.Fprintf(a.stderr, "mcp: stopped %d %s\n", n, words.Plural(n, "multiplexer", "multiplexers"))
	return nil
}
