package main

import (
	"context"
	"os"
	"time"

	"github.com/mcpsh/mcp/internal/explain"
	"github.com/mcpsh/mcp/internal/guide"
	"github.com/mcpsh/mcp/internal/output"
	"github.com/mcpsh/mcp/mux"
)

// guideTimeout bounds listing the servers for the guide.
const guideTimeout = 30 * time.Second

// helpRequest says whether args ask for the top-level help (and not for
// completions: a shell runs mcp with COMP_LINE set and no arguments).
func helpRequest(args []string) bool {
	if _, completing := os.LookupEnv("COMP_LINE"); completing {
		return false
	}
	return len(args) == 0 || len(args) == 1 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")
}

// sessionGuide prints the session's guide. A surface that cannot be
// listed leaves its servers out, with a warning.
func (a *app) sessionGuide() error {
	a.globals = &Globals{Timeout: guideTimeout, MaxOutput: output.Size(1 << 20)}
	var cat *mux.Catalog
	err := a.withBackend(func(ctx context.Context, b mux.Backend) error {
		var err error
		cat, err = b.Catalog(ctx, mux.Listed)
		return err
	})
	if err != nil {
		a.warn("the session's servers could not be listed: %s", explain.Summary(err))
	}
	guide.Write(a.stdout, cat, explain.Summary)
	return nil
}
