package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/search"
)

type searchCmd struct {
	Query  []string `arg:"" help:"What the tool should do, in a few words." placeholder:"WORDS"`
	Limit  int      `default:"10" help:"Most results to print."`
	Server string   `help:"Only this server's tools." placeholder:"ID"`
}

func (c *searchCmd) Run(a *app) error {
	if c.Limit <= 0 {
		return &usageError{msg: "--limit must be at least 1"}
	}
	return a.withBackend(func(ctx context.Context, b mux.Backend) error {
		ans, err := a.search(ctx, b, search.Request{Text: strings.Join(c.Query, " "), Limit: c.Limit, Server: c.Server})
		if err != nil {
			return err
		}
		if a.globals.JSON {
			return a.writeJSON(catalog.WithoutRaw(ans.Tools))
		}
		if len(ans.Tools) == 0 {
			fmt.Fprintln(a.stderr, "mcp: no tools match; `mcp list` shows every server, `mcp list SERVER` their tools")
			return nil
		}
		for _, t := range ans.Tools {
			fmt.Fprintln(a.stdout, t.Line())
		}
		return nil
	})
}

// search runs a query, with a warning for each server it left out. A
// server whose directory is not trusted fails the search: its tools are
// not shown as if they could be used, and a search without them would
// look complete.
func (a *app) search(ctx context.Context, b mux.Backend, req search.Request) (*search.Answer, error) {
	ans, err := b.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, s := range ans.Skipped {
		var u *manifests.UntrustedError
		if errors.As(s.Err, &u) {
			return nil, s.Err
		}
	}
	for _, s := range ans.Skipped {
		a.warn("%s is not searched: %s", s.Server, oneLine(s.Err))
	}
	return ans, nil
}
