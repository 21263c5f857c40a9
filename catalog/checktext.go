package catalog

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/manifests"
)

// ProblemsError says `mcp check` found problems, already printed: exit 5.
type ProblemsError struct{ N int }

// ExitCode is exit.Config: the configuration is invalid.
func (e *ProblemsError) ExitCode() int { return exit.Config }

// Error counts the problems.
func (e *ProblemsError) Error() string {
	return fmt.Sprintf("%d %s in the configuration", e.N, words.Plural(e.N, "problem", "problems"))
}

// Err is a *ProblemsError when the report found problems, else nil.
func (rep *Report) Err() error {
	if len(rep.Problems) > 0 {
		return &ProblemsError{N: len(rep.Problems)}
	}
	return nil
}

// WriteText writes the report as `mcp check` prints it: the boundary, each
// agent's surface and "ok" to w, the problems and warnings to errw. r is
// the recipe the report is of.
func (rep *Report) WriteText(w, errw io.Writer, r *manifests.Recipe) {
	if rep.User {
		fmt.Fprintf(w, "no recipe here: your own MCP configuration is the boundary (every tool of its servers)\n")
	} else {
		fmt.Fprintf(w, "recipe %s\n", rep.Recipe)
	}
	if rep.Trust != nil {
		fmt.Fprintln(w, manifests.TrustLine(rep.Trust))
	}
	switch {
	case rep.Boundary != nil && len(rep.Boundary.Servers) == 0 && rep.User:
		fmt.Fprintf(w, "no servers: there is no package.json with pi.mcp in %s or above, and no server in %s\n",
			rep.Recipe, strings.Join(manifests.UserFiles(rep.Recipe), ", "))
	case rep.Boundary != nil && len(rep.Boundary.Servers) == 0:
		fmt.Fprintln(w, "package boundary: no servers (package.json declares none in pi.mcp.servers)")
	case rep.Boundary != nil:
		fmt.Fprintln(w, "package boundary:")
		for _, srv := range rep.Boundary.Servers {
			fmt.Fprintf(w, "  %s  %s%s\n", srv.ID, srv.Describe(rep.Covers[srv.ID]), endpointNote(r, srv.ID))
			if env, ok := rep.Env[srv.ID]; ok {
				fmt.Fprintf(w, "    env: %s\n", envLine(env))
			}
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
			fmt.Fprintf(w, "  %s  %s\n", srv.ID, srv.Describe(rep.Covers[srv.ID]))
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(errw, "mcp: error: %s\n", p)
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(errw, "mcp: warning: %s\n", warn)
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "ok")
	}
}

// envLine names the variables a server gets, by where they come from.
func envLine(n manifests.EnvNames) string {
	parts := []string{"base " + orNone(n.Base)}
	if len(n.Passed) > 0 {
		parts = append(parts, "passed "+strings.Join(n.Passed, " "))
	}
	if len(n.Declared) > 0 {
		parts = append(parts, "declared "+strings.Join(n.Declared, " "))
	}
	return strings.Join(parts, "; ")
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, " ")
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
