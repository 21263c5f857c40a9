package catalog

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/manifests"
)

// Report is what `mcp check` finds in a recipe: the package boundary, each
// agent's resolved surface (its blast radius), and every problem and
// warning, one line each.
type Report struct {
	Recipe   string              `json:"recipe"`
	User     bool                `json:"user,omitempty"`
	Boundary *Surface            `json:"boundary"`
	Agents   map[string]*Surface `json:"agents"`
	Problems []string            `json:"problems"`
	Warnings []string            `json:"warnings"`
	// Trust is what trust the recipe's project files need and have;
	// nil when it could not be read.
	Trust *manifests.TrustState `json:"trust,omitempty"`
	// Env names, for each server of the boundary started from a command,
	// the variables it gets from this environment: never their values.
	Env map[string]manifests.EnvNames `json:"env,omitempty"`
	// Covers says, for each server whose tools have been listed (Cover),
	// which of the names it listed each exclusion of the boundary and of
	// the agents covers: server id, then exclusion as written.
	Covers map[string]map[string][]string `json:"covers,omitempty"`
}

// Cover fills in Covers from listed, the names each server of the
// boundary listed when it was last seen, by server id.
func (rep *Report) Cover(listed map[string][]string) {
	if rep.Boundary == nil {
		return
	}
	surfaces := []*Surface{rep.Boundary}
	for _, s := range rep.Agents {
		surfaces = append(surfaces, s)
	}
	for _, s := range surfaces {
		for _, srv := range s.Servers {
			names, ok := listed[srv.ID]
			if !ok {
				continue
			}
			for _, rule := range srv.Exclude {
				if rep.Covers == nil {
					rep.Covers = map[string]map[string][]string{}
				}
				if rep.Covers[srv.ID] == nil {
					rep.Covers[srv.ID] = map[string][]string{}
				}
				rep.Covers[srv.ID][rule] = append([]string{}, CoveredBy(rule, names)...)
			}
		}
	}
}

// Check resolves the recipe at root (r and readErr are what reading it
// gave) for agent, or for every agent when agent is "".
func Check(root string, user bool, r *manifests.Recipe, readErr error, agent string) *Report {
	rep := &Report{Recipe: root, User: user, Agents: map[string]*Surface{}, Problems: []string{}, Warnings: []string{}}
	if readErr != nil {
		rep.Problems = append(rep.Problems, problemLines(readErr)...)
		return rep
	}
	rep.Warnings = append(rep.Warnings, r.Warnings...)
	rep.Trust = &r.Trust
	rep.Boundary, _, _ = Resolve(r, "")
	names := []string{agent}
	if agent == "" {
		names = names[:0]
		for n := range r.Agents {
			names = append(names, n)
		}
		for n := range r.AgentErrors {
			if _, ok := r.Agents[n]; !ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
	}
	for _, n := range names {
		s, warns, err := Resolve(r, n)
		rep.Warnings = append(rep.Warnings, warns...)
		if err != nil {
			for _, line := range problemLines(err) {
				// An agent's broken file is also the problem of the
				// agents extending it: said once.
				if !slices.Contains(rep.Problems, line) {
					rep.Problems = append(rep.Problems, line)
				}
			}
			continue
		}
		rep.Agents[n] = s
	}
	if agent != "" {
		rep.Warnings = append(rep.Warnings, UnreadAgents(r, agent)...)
	}
	rep.Warnings = append(rep.Warnings, endpointWarnings(r, rep.Boundary)...)
	rep.Env = serverEnvs(r, rep.Boundary)
	return rep
}

// serverEnvs is, for each server of boundary started from a command, the
// names of the variables it gets from this environment.
func serverEnvs(r *manifests.Recipe, boundary *Surface) map[string]manifests.EnvNames {
	if boundary == nil {
		return nil
	}
	out := map[string]manifests.EnvNames{}
	for _, srv := range boundary.Servers {
		ep, ok := r.Endpoints[manifests.CanonicalID(srv.ID)]
		if !ok || ep.Command == "" {
			continue
		}
		if x, err := ep.Expand(os.LookupEnv); err == nil {
			ep = x
		}
		out[srv.ID] = ep.ServerEnvNames(os.Environ())
	}
	return out
}

// Describe says what one server entry authorizes: its blast radius. The
// excluded tools are named only next to "*": an exact list holds none of
// them. covers (an exclusion's names among what the server listed, as
// Report.Covers has them; nil when it has not been seen) adds, to each
// exclusion that covers more than its own spelling or none of what was
// listed, what it covers.
func (srv *ServerSurface) Describe(covers map[string][]string) string {
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
	if srv.All && len(srv.Exclude) > 0 {
		rules := make([]string, len(srv.Exclude))
		for i, rule := range srv.Exclude {
			rules[i] = rule + coverNote(rule, covers)
		}
		parts = append(parts, "except "+strings.Join(rules, ", "))
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

// coverNote is what Describe says after an exclusion of what it covers.
func coverNote(rule string, covers map[string][]string) string {
	names, seen := covers[rule]
	switch {
	case !seen || len(names) == 1 && names[0] == rule:
		return ""
	case len(names) == 0:
		return " (covers none of the tools listed)"
	}
	return " (covers " + strings.Join(names, ", ") + ")"
}

// endpointWarnings names servers that have no endpoint or whose endpoint
// needs a variable that is not set.
func endpointWarnings(r *manifests.Recipe, boundary *Surface) []string {
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
