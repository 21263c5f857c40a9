package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/explain"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

type listCmd struct {
	Target string `arg:"" optional:"" help:"SERVER or SERVER.TOOL." placeholder:"SERVER[.TOOL]"`
	Schema bool   `help:"Print input schemas in full."`
}

// splitTarget splits SERVER.TOOL at the first dot: server ids have none.
func splitTarget(target string) (server, tool string) {
	server, tool, _ = strings.Cut(target, ".")
	return server, tool
}

func (c *listCmd) Run(a *app) error {
	return a.withBackend(func(ctx context.Context, eng mux.Backend) error { return c.list(ctx, a, eng) })
}

func (c *listCmd) list(ctx context.Context, a *app, eng mux.Backend) error {
	server, tool := splitTarget(c.Target)
	switch {
	case c.Target == "":
		return c.servers(ctx, a, eng)
	case tool == "":
		tools, err := eng.Tools(ctx, server)
		if err != nil {
			return err
		}
		return c.tools(a, tools)
	default:
		t, err := eng.Tool(ctx, server, tool)
		if err != nil {
			return err
		}
		return c.one(a, t)
	}
}

type serverLine struct {
	ID    string `json:"id"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
	// Protocol is the MCP revision the server speaks, when known.
	Protocol string `json:"protocol,omitempty"`
}

// servers prints one line per server of the surface, connecting to them in
// parallel. A server that cannot be reached is shown with its reason and
// makes the exit code 4. A server whose directory is not trusted is shown
// as untrusted, with a hint of what trusting it would allow; that alone
// does not fail the overview.
func (c *listCmd) servers(ctx context.Context, a *app, b mux.Backend) error {
	cat, err := b.Catalog(ctx, mux.Counted)
	if err != nil {
		return err
	}
	lines := make([]serverLine, len(cat.Servers))
	var firstErr error
	var untrusted []error
	for i, s := range cat.Servers {
		lines[i] = serverLine{ID: s.ID, Tools: s.Count, Protocol: s.Protocol}
		if s.Err == nil {
			continue
		}
		lines[i].Error = explain.Summary(s.Err)
		var u *manifests.UntrustedError
		var host *mux.HostSideError
		switch {
		case errors.As(s.Err, &u):
			untrusted = append(untrusted, s.Err)
		case errors.As(s.Err, &host) && host.Word == "untrusted":
			// A session's guest: the host trusts, the overview stands.
		case firstErr == nil:
			firstErr = s.Err
		}
	}
	if err := c.printServers(a, lines); err != nil {
		return err
	}
	for _, h := range manifests.UntrustedHints(untrusted) {
		fmt.Fprintf(a.stderr, "mcp: hint: %s\n", h)
	}
	if firstErr != nil {
		return &alreadyReported{err: firstErr}
	}
	return nil
}

func (c *listCmd) printServers(a *app, lines []serverLine) error {
	if a.globals.JSON {
		return a.writeJSON(lines)
	}
	if len(lines) == 0 {
		fmt.Fprintln(a.stderr, noServers(a))
	}
	for _, l := range lines {
		if l.Error != "" {
			fmt.Fprintf(a.stdout, "%s  %s\n", l.ID, l.Error)
		} else {
			fmt.Fprintf(a.stdout, "%s  %d %s\n", l.ID, l.Tools, words.Plural(l.Tools, "tool", "tools"))
		}
	}
	return nil
}

func (c *listCmd) tools(a *app, tools []catalog.Tool) error {
	if a.globals.JSON || c.Schema {
		return a.writeJSON(catalog.WithoutRaw(tools))
	}
	for _, t := range tools {
		fmt.Fprintln(a.stdout, t.Line())
	}
	return nil
}

func (c *listCmd) one(a *app, t catalog.Tool) error {
	switch {
	case a.globals.JSON:
		return a.writeJSON(t.WithoutRaw())
	case c.Schema:
		// The schema alone, so that it can be piped to jq.
		return a.writeJSON(t.Schema())
	}
	t.WriteText(a.stdout)
	return nil
}

// noServers is the line for a list with nothing in it: where the servers
// would have come from.
func noServers(a *app) string {
	if a.inSession() {
		return "mcp: no servers are authorized in this session"
	}
	t, err := a.target()
	switch {
	case err != nil:
		return "mcp: no servers are authorized here"
	case t.User:
		return fmt.Sprintf("mcp: no servers: there is no package.json with pi.mcp in %s or above, and your MCP configuration has none (`mcp list --sources` shows the files read)", t.Root)
	}
	return fmt.Sprintf("mcp: no servers: the recipe in %s declares none in pi.mcp.servers", t.Root)
}
