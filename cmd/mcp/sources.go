package main

import (
	"fmt"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// hostListCmd is list with what only the host may ask: where the
// configuration came from. A session refuses --sources (refuse.go).
type hostListCmd struct {
	listCmd `embed:""`
	Sources bool `help:"Show the file each server's entry came from, and for your own configuration every file read or skipped, without connecting."`
}

func (c *hostListCmd) Run(a *app) error {
	if !c.Sources {
		return c.listCmd.Run(a)
	}
	if c.Target != "" || c.Schema {
		return &usageError{msg: "--sources lists every server and takes no SERVER or --schema",
			hint: "run `mcp list --sources`"}
	}
	return listSources(a)
}

type sourceLine struct {
	ID   string `json:"id"`
	File string `json:"file,omitempty"` // "" when the server has no endpoint
	Line int    `json:"line,omitempty"`
}

type sourcesJSON struct {
	Servers []sourceLine       `json:"servers"`
	Files   []manifests.Source `json:"files,omitempty"`
}

// listSources prints, for each server of the surface, the file its entry
// came from; for the user's own configuration, then every file that was
// read or skipped, in the order they were read.
func listSources(a *app) error {
	root, user, err := a.locate()
	if err != nil {
		return err
	}
	r, err := manifests.Read(root, user)
	if err != nil {
		return err
	}
	s, warns, err := catalog.Resolve(r, a.agent)
	for _, w := range append(r.Warnings, warns...) {
		a.warn("%s", w)
	}
	if err != nil {
		return err
	}
	out := sourcesJSON{Servers: []sourceLine{}, Files: r.Sources}
	for _, srv := range s.Servers {
		l := sourceLine{ID: srv.ID}
		if ep, ok := r.Endpoints[manifests.CanonicalID(srv.ID)]; ok {
			l.File, l.Line = ep.Pos.File, ep.Pos.Line
		}
		out.Servers = append(out.Servers, l)
	}
	if a.globals.JSON {
		return a.writeJSON(out)
	}
	if len(out.Servers) == 0 {
		fmt.Fprintln(a.stderr, noServers(a))
	}
	for _, l := range out.Servers {
		switch {
		case l.File == "":
			fmt.Fprintf(a.stdout, "%s  [no endpoint]\n", l.ID)
		case l.Line > 0:
			fmt.Fprintf(a.stdout, "%s  %s:%d\n", l.ID, l.File, l.Line)
		default:
			fmt.Fprintf(a.stdout, "%s  %s\n", l.ID, l.File)
		}
	}
	if user {
		fmt.Fprintln(a.stdout, "files:")
		for _, f := range r.Sources {
			fmt.Fprintf(a.stdout, "  %s  %s\n", f.Label(), f.Outcome())
		}
	}
	return nil
}
