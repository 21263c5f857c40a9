package main

import (
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/state"
	"github.com/mcpsh/mcp/internal/toolsmode"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

type checkCmd struct {
	Paths bool `help:"Name every place mcp writes on this system (trust store, tokens, caches, index, sessions, the runtime directory), and check nothing."`
}

func (c *checkCmd) Run(a *app) error {
	if c.Paths && a.globals.JSON {
		return a.writeJSON(state.Places())
	} else if c.Paths {
		state.WriteText(a.stdout, state.Places())
		return nil
	}
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
	return rep.Err()
}
