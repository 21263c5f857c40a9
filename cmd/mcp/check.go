package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/manifests"
)

type checkCmd struct{}

// invalidConfig says `mcp check` found problems, already printed: exit 5.
type invalidConfig struct{ n int }

func (e *invalidConfig) ExitCode() int { return exit.Config }

func (e *invalidConfig) Error() string {
	return fmt.Sprintf("%d %s in the configuration", e.n, plural(e.n, "problem", "problems"))
}

type checkReport struct {
	Recipe   string                      `json:"recipe"`
	User     bool                        `json:"user,omitempty"`
	Boundary *catalog.Surface            `json:"boundary"`
	Agents   map[string]*catalog.Surface `json:"agents"`
	Problems []string                    `json:"problems"`
	Warnings []string                    `json:"warnings"`
}

func (c *checkCmd) Run(a *app) error {
	root, user, err := a.locate()
	if err != nil {
		return err
	}
	rep := checkReport{Recipe: root, User: user, Agents: map[string]*catalog.Surface{}, Problems: []string{}, Warnings: []string{}}
	r, err := manifests.Read(root, user)
	if err != nil {
		rep.Problems = append(rep.Problems, problemLines(err)...)
		return c.finish(a, &rep, r)
	}
	rep.Warnings = append(rep.Warnings, r.Warnings...)
	rep.Boundary, _, _ = catalog.Resolve(r, "")
	names := []string{a.agent}
	if a.agent == "" {
		names = names[:0]
		for n := range r.Agents {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	for _, n := range names {
		s, warns, err := catalog.Resolve(r, n)
		rep.Warnings = append(rep.Warnings, warns...)
		if err != nil {
			rep.Problems = append(rep.Problems, problemLines(err)...)
			continue
		}
		rep.Agents[n] = s
	}
	rep.Warnings = append(rep.Warnings, endpointWarnings(r, rep.Boundary)...)
	return c.finish(a, &rep, r)
}

func (c *checkCmd) finish(a *app, rep *checkReport, r *manifests.Recipe) error {
	if a.globals.JSON {
		if err := writeJSON(a.stdout, rep); err != nil {
			return err
		}
	} else {
		printReport(a, rep, r)
	}
	if len(rep.Problems) > 0 {
		return &invalidConfig{n: len(rep.Problems)}
	}
	return nil
}

func printReport(a *app, rep *checkReport, r *manifests.Recipe) {
	w := a.stdout
	if rep.User {
		fmt.Fprintf(w, "no recipe here: your own MCP configuration is the boundary (every tool of its servers)\n")
	} else {
		fmt.Fprintf(w, "recipe %s\n", rep.Recipe)
	}
	if rep.Boundary != nil {
		fmt.Fprintln(w, "package boundary:")
		for _, srv := range rep.Boundary.Servers {
			fmt.Fprintf(w, "  %s  %s%s\n", srv.ID, describe(srv), endpointNote(r, srv.ID))
		}
	}
	names := make([]string, 0, len(rep.Agents))
	for n := range rep.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := rep.Agents[n]
		extends := ""
		if ag := r.Agents[n]; ag != nil && ag.Extends != "" {
			extends = ", extends " + ag.Extends
		}
		fmt.Fprintf(w, "agent %s (mode %s%s):\n", n, s.Mode, extends)
		if len(s.Servers) == 0 {
			fmt.Fprintln(w, "  no MCP access")
		}
		for _, srv := range s.Servers {
			fmt.Fprintf(w, "  %s  %s\n", srv.ID, describe(srv))
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(a.stderr, "mcp: error: %s\n", p)
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(a.stderr, "mcp: warning: %s\n", warn)
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "ok")
	}
}

// describe renders what one server entry authorizes: its blast radius.
func describe(srv *catalog.ServerSurface) string {
	var parts []string
	if srv.Required {
		parts = append(parts, "required")
	}
	switch {
	case srv.All:
		parts = append(parts, "every tool (*), including tools it adds later")
	case len(srv.Tools) == 0:
		parts = append(parts, "nothing")
	default:
		parts = append(parts, strings.Join(srv.Tools, ", "))
	}
	if len(srv.Exclude) > 0 {
		parts = append(parts, "except "+strings.Join(srv.Exclude, ", "))
	}
	if srv.DeferAll {
		parts = append(parts, "deferred: all")
	} else if len(srv.Defer) > 0 {
		parts = append(parts, "deferred: "+strings.Join(srv.Defer, ", "))
	}
	if len(srv.Eager) > 0 {
		parts = append(parts, "eager: "+strings.Join(srv.Eager, ", "))
	}
	return strings.Join(parts, "; ")
}

// endpointNote says where a server lives without printing anything secret:
// the command's base name, or a URL's scheme and host.
func endpointNote(r *manifests.Recipe, id string) string {
	ep, ok := r.Endpoints[manifests.CanonicalID(id)]
	if !ok {
		return "  [no endpoint]"
	}
	if ep.Command != "" {
		return "  [stdio: " + filepath.Base(ep.Command) + "]"
	}
	t, _ := ep.Transport()
	if u, err := url.Parse(ep.URL); err == nil && u.Host != "" {
		return fmt.Sprintf("  [%s: %s://%s]", t, u.Scheme, u.Host)
	}
	return fmt.Sprintf("  [%s]", t)
}

// endpointWarnings names servers that have no endpoint or whose endpoint
// needs a variable that is not set.
func endpointWarnings(r *manifests.Recipe, boundary *catalog.Surface) []string {
	var out []string
	if boundary == nil {
		return nil
	}
	for _, srv := range boundary.Servers {
		ep, ok := r.Endpoints[manifests.CanonicalID(srv.ID)]
		if !ok {
			what := "calls to it will fail"
			if srv.Required {
				what = "sessions will not start"
			}
			out = append(out, fmt.Sprintf("server %s has no endpoint: %s until a manifest or .pi/mcp.local.json says where it lives", srv.ID, what))
			continue
		}
		if _, err := ep.Expand(os.LookupEnv); err != nil {
			out = append(out, err.Error())
		}
	}
	return out
}

func problemLines(err error) []string {
	var errs manifests.Errors
	if errors.As(err, &errs) {
		out := make([]string, len(errs))
		for i, e := range errs {
			out[i] = e.Error()
		}
		return out
	}
	return []string{err.Error()}
}
