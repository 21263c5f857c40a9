package main

import (
	"fmt"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/toolsmode"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

type checkCmd struct{}

// invalidConfig says `mcp check` found problems, already printed: exit 5.
type invalidConfig struct{ n int }

func (e *invalidConfig) ExitCode() int { return exit.Config }

func (e *invalidConfig) Error() string {
	return fmt.Sprintf("%d %s in the configuration", e.n, plural(e.n, "problem", "problems"))
}

func (c *checkCmd) Run(a *app) error {
	root, user, err := a.locate()
	if err != nil {
		return err
	}
	r, err := manifests.Read(root, user)
	rep := catalog.Check(root, user, r, err, a.agent)
	if rep.Boundary != nil {
		// What the servers listed when last seen, from the catalog cache,
		// shows what each exclusion covers; nothing is started.
		cfg := &mux.Config{Surface: rep.Boundary, Endpoints: r.Endpoints}
		rep.Cover(mux.LastListed(cfg, upstreamOptions(), toolsmode.NewRelay().Upstream(upstreamOptions())))
	}
	return c.finish(a, rep, r)
}

func (c *checkCmd) finish(a *app, rep *catalog.Report, r *manifests.Recipe) error {
	if a.globals.JSON {
		if err := a.writeJSON(rep); err != nil {
			return err
		}
	} else {
		rep.WriteText(a.stdout, a.stderr, r)
	}
	if len(rep.Problems) > 0 {
		return &invalidConfig{n: len(rep.Problems)}
	}
	return nil
}
