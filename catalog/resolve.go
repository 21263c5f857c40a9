package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/manifests"
)

// Resolve returns the surface of one agent, or of the package boundary
// itself when agent is "". Every problem found is returned as
// manifests.Errors; warnings (valid but probably unintended) come back
// separately and never change the surface.
func Resolve(r *manifests.Recipe, agent string) (*Surface, []string, error) {
	if r.Package == nil {
		if agent != "" {
			return nil, nil, manifests.Errors{{
				Field: "--agent", Value: agent,
				Msg:  "agents belong to a recipe, and there is no package.json with pi.mcp here or above",
				Hint: "give --recipe DIR, or run inside a recipe, or drop --agent to use your own MCP configuration",
			}}
		}
		return userSurface(r), nil, nil
	}
	if agent == "" {
		return boundarySurface(r.Package), nil, nil
	}
	res := resolver{r: r}
	s := res.agent(agent)
	if len(res.errs) > 0 {
		return nil, res.warns, res.errs
	}
	return s, res.warns, nil
}

func userSurface(r *manifests.Recipe) *Surface {
	s := &Surface{Mode: ModeCLI, User: true}
	for _, ep := range r.Endpoints {
		s.Servers = append(s.Servers, &ServerSurface{ID: ep.ID, All: true})
	}
	sortServers(s.Servers)
	return s
}

func boundarySurface(p *manifests.Package) *Surface {
	s := &Surface{Mode: ModeCLI}
	for _, sp := range p.Servers {
		s.Servers = append(s.Servers, packageServer(sp))
	}
	sortServers(s.Servers)
	return s
}

func packageServer(sp manifests.ServerPolicy) *ServerSurface {
	srv := &ServerSurface{ID: sp.ID, Required: sp.Required, Exclude: slices.Clone(sp.Exclude)}
	if isAll(sp.Include) {
		srv.All = true
	} else {
		srv.Tools = without(sp.Include, sp.Exclude)
	}
	return srv
}

type resolver struct {
	r     *manifests.Recipe
	errs  manifests.Errors
	warns []string
}

func (res *resolver) fail(pos manifests.Pos, field, value, msg, hint string) {
	res.errs = append(res.errs, &manifests.Error{Pos: pos, Field: field, Value: value, Msg: msg, Hint: hint})
}

// chain returns the agent and its ancestors, nearest first.
func (res *resolver) chain(name string) []*manifests.Agent {
	var chain []*manifests.Agent
	seen := map[string]bool{}
	for cur := name; cur != ""; {
		if errs, broken := res.r.AgentErrors[cur]; broken {
			res.errs = append(res.errs, errs...)
			return nil
		}
		a, ok := res.r.Agents[cur]
		if !ok {
			if len(chain) == 0 {
				res.fail(manifests.Pos{}, "--agent", cur, "no such agent",
					"agents are files under agents/: "+strings.Join(res.agentNames(), ", "))
			} else {
				child := chain[len(chain)-1]
				res.fail(child.Pos, "extends", cur, "no such agent", "extends names another file under agents/, without extension")
			}
			return nil
		}
		if seen[cur] {
			res.fail(a.Pos, "extends", cur, "extends chain loops back to "+cur, "remove the cycle")
			return nil
		}
		seen[cur] = true
		chain = append(chain, a)
		cur = a.Extends
	}
	return chain
}

// UnreadAgents are warnings, one a file, for the agent files that could
// not be read and that the surface of agent ("" for the package boundary)
// does not depend on: those agents are not served, and nothing else is
// held up by them.
func UnreadAgents(r *manifests.Recipe, agent string) []string {
	inChain := map[string]bool{}
	for cur := agent; cur != "" && !inChain[cur]; {
		inChain[cur] = true
		if a, ok := r.Agents[cur]; ok {
			cur = a.Extends
		} else {
			break
		}
	}
	names := make([]string, 0, len(r.AgentErrors))
	for n := range r.AgentErrors {
		if !inChain[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		for _, e := range r.AgentErrors[n] {
			out = append(out, fmt.Sprintf("%s (agent %s is not served until it is fixed)", e.Error(), n))
		}
	}
	return out
}

func (res *resolver) agentNames() []string {
	names := make([]string, 0, len(res.r.Agents))
	for n := range res.r.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

func (res *resolver) agent(name string) *Surface {
	chain := res.chain(name)
	if chain == nil {
		return nil
	}
	s := &Surface{Agent: name, Mode: ModeCLI}
	// The nearest declared mcp block wins whole; an agent without one
	// anywhere in its chain has no access.
	var block *manifests.AgentMCP
	var owner *manifests.Agent
	for _, a := range chain {
		if a.MCP != nil {
			block, owner = a.MCP, a
			break
		}
	}
	if block == nil {
		return s
	}
	if block.Mode != "" {
		s.Mode = Mode(block.Mode)
	} else if name, m := inheritedMode(chain, owner); m != "" && Mode(m) != ModeCLI {
		res.warns = append(res.warns, fmt.Sprintf(
			"%s: mcp.mode is not restated, so this agent gets cli although %s declares mode %s (a declared mcp block replaces the inherited one whole)",
			owner.File, name, m))
	}
	pkg := res.r.Package
	for _, as := range block.Servers {
		sp, ok := packagePolicy(pkg, as.ID)
		if !ok {
			res.fail(as.Pos, "mcp.servers."+as.ID, as.ID, "server is not declared by the package",
				"an agent can only narrow: declare it in package.json pi.mcp.servers first")
			continue
		}
		if srv := res.narrow(owner, sp, as, s.Mode); srv != nil {
			s.Servers = append(s.Servers, srv)
		}
	}
	sortServers(s.Servers)
	return s
}

// inheritedMode finds the nearest ancestor beyond owner that declares a
// mode, to warn when a replacing block silently drops it.
func inheritedMode(chain []*manifests.Agent, owner *manifests.Agent) (agent, mode string) {
	i := slices.Index(chain, owner)
	for _, a := range chain[i+1:] {
		if a.MCP != nil && a.MCP.Mode != "" {
			return a.Name, a.MCP.Mode
		}
	}
	return "", ""
}

func packagePolicy(p *manifests.Package, id string) (manifests.ServerPolicy, bool) {
	c := manifests.CanonicalID(id)
	for _, sp := range p.Servers {
		if manifests.CanonicalID(sp.ID) == c {
			return sp, true
		}
	}
	return manifests.ServerPolicy{}, false
}

// narrow intersects one agent server entry with its package policy.
func (res *resolver) narrow(owner *manifests.Agent, sp manifests.ServerPolicy, as manifests.AgentServer, mode Mode) *ServerSurface {
	field := "mcp.servers." + as.ID
	pkgAll := isAll(sp.Include)
	srv := &ServerSurface{ID: sp.ID, Required: sp.Required}
	srv.Exclude = union(sp.Exclude, as.Exclude)
	bad := false
	switch {
	case isAll(as.Include):
		srv.All = pkgAll
		if !pkgAll {
			srv.Tools = without(sp.Include, srv.Exclude)
		}
	default:
		for i, t := range as.Include {
			inPkg := pkgAll || slices.Contains(sp.Include, t)
			if !inPkg || covered(sp.Exclude, t) {
				res.fail(as.Pos, fmt.Sprintf("%s.include[%d]", field, i), t,
					"is outside the package boundary for server "+sp.ID,
					"an agent can only narrow: the package permits "+describePolicy(sp))
				bad = true
				continue
			}
			if !covered(srv.Exclude, t) && !slices.Contains(srv.Tools, t) {
				srv.Tools = append(srv.Tools, t)
			}
		}
	}
	if len(as.Include) == 0 {
		res.warns = append(res.warns, fmt.Sprintf("%s: %s has no include list, so it authorizes nothing", owner.File, field))
	}
	if mode == ModeCLI && (len(as.Defer) > 0 || len(as.Eager) > 0) {
		key := "defer"
		if len(as.Defer) == 0 {
			key = "eager"
		}
		res.fail(as.Pos, field+"."+key, "", key+" is only valid in tools mode",
			"set mcp.mode: tools, or remove defer and eager")
		return nil
	}
	srv.DeferAll = isAll(as.Defer)
	if !srv.DeferAll {
		srv.Defer = res.authorizedOnly(srv, as.Pos, field+".defer", as.Defer, &bad)
	}
	srv.Eager = res.authorizedOnly(srv, as.Pos, field+".eager", as.Eager, &bad)
	if bad {
		return nil
	}
	return srv
}

// authorizedOnly checks that defer/eager name only tools the entry
// authorizes: neither can authorize anything.
func (res *resolver) authorizedOnly(srv *ServerSurface, pos manifests.Pos, field string, names []string, bad *bool) []string {
	var out []string
	for i, t := range names {
		if !srv.Allowed(t) {
			res.fail(pos, fmt.Sprintf("%s[%d]", field, i), t,
				"is not authorized for this agent; defer and eager cannot authorize anything",
				"add it to include first (inside the package boundary)")
			*bad = true
			continue
		}
		out = append(out, t)
	}
	return out
}

// describePolicy says which tools a package entry permits: an exact list
// less what it excludes, or every tool except the excluded ones.
func describePolicy(sp manifests.ServerPolicy) string {
	switch tools := without(sp.Include, sp.Exclude); {
	case isAll(sp.Include) && len(sp.Exclude) > 0:
		return "every tool except " + strings.Join(sp.Exclude, ", ")
	case isAll(sp.Include):
		return "every tool"
	case len(tools) == 0:
		return "nothing"
	default:
		return strings.Join(tools, ", ")
	}
}

func isAll(names []string) bool { return len(names) == 1 && names[0] == "*" }

// without is names, each once, less those an exclusion of drop covers.
func without(names, drop []string) []string {
	var out []string
	for _, n := range names {
		if !covered(drop, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
