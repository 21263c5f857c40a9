// Package catalog decides what a session may reach. It resolves the package
// boundary (package.json, pi.mcp) and an agent's mcp block into a Surface,
// and its Allowed method is the one gate every path goes through: list,
// call, search, run and tools mode.
package catalog

import (
	"slices"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/manifests"
)

// Mode is how an agent sees its tools.
type Mode string

const (
	ModeCLI   Mode = "cli"
	ModeTools Mode = "tools"
)

// ServerSurface is what one server contributes to a surface.
type ServerSurface struct {
	ID       string `json:"id"` // as declared in the package (or the user's config)
	Required bool   `json:"required,omitempty"`
	// All means every tool the server offers, including tools it adds later.
	All bool `json:"all,omitempty"`
	// Tools are the exact names authorized when All is false.
	Tools []string `json:"tools,omitempty"`
	// Exclude always wins over All and Tools, and covers every spelling
	// of its names (Covers): "-" or "_", in any case.
	Exclude []string `json:"exclude,omitempty"`
	// DeferAll and Defer hide authorized tools at session start (tools mode);
	// Eager subtracts exceptions and wins over both.
	DeferAll bool     `json:"deferAll,omitempty"`
	Defer    []string `json:"defer,omitempty"`
	Eager    []string `json:"eager,omitempty"`
}

// Allowed reports whether the tool is authorized on this server: no
// exclusion covers it, and the server's entry includes it, by "*" or by
// its exact name.
func (s *ServerSurface) Allowed(tool string) bool {
	if !manifests.ValidToolName(tool) || covered(s.Exclude, tool) {
		return false
	}
	return s.All || slices.Contains(s.Tools, tool)
}

// Deferred reports whether an authorized tool starts hidden.
func (s *ServerSurface) Deferred(tool string) bool {
	if !s.Allowed(tool) || slices.Contains(s.Eager, tool) {
		return false
	}
	return s.DeferAll || slices.Contains(s.Defer, tool)
}

// Surface is an agent's authorized surface: fixed when a session starts.
type Surface struct {
	Agent string `json:"agent,omitempty"` // "" for the package boundary itself
	Mode  Mode   `json:"mode"`
	// User is true outside a recipe, where the user's own config is the
	// boundary and every tool of its servers is authorized.
	User bool `json:"user,omitempty"`
	// Session says this is a session's surface, fixed when it started:
	// what it refuses speaks of the session.
	Session bool             `json:"session,omitempty"`
	Servers []*ServerSurface `json:"servers"` // sorted by id
}

// Server finds a server by id; "dev-radius" and "dev_radius" are the same.
func (s *Surface) Server(id string) (*ServerSurface, bool) {
	if s == nil || !manifests.ValidServerID(id) {
		return nil, false
	}
	c := manifests.CanonicalID(id)
	for _, srv := range s.Servers {
		if manifests.CanonicalID(srv.ID) == c {
			return srv, true
		}
	}
	return nil, false
}

// Allowed is the gate: whether this surface may call server.tool.
func (s *Surface) Allowed(server, tool string) bool {
	srv, ok := s.Server(server)
	return ok && srv.Allowed(tool)
}

// Check returns nil when server.tool is authorized, and a
// *NotAvailableError otherwise. Unknown and unauthorized tools give the same
// error, so a session learns nothing about what exists beyond its surface.
func (s *Surface) Check(server, tool string) error {
	if s.Allowed(server, tool) {
		return nil
	}
	return s.NotAvailable(server, tool)
}

// NotAvailable is the error for server.tool (or server alone, with tool
// "") outside the surface, worded for where the surface is used.
func (s *Surface) NotAvailable(server, tool string) *NotAvailableError {
	e := &NotAvailableError{Server: server, Tool: tool}
	if s != nil {
		e.Session, e.User = s.Session, s.User
	}
	return e
}

// Deferred reports whether server.tool is authorized and starts hidden.
func (s *Surface) Deferred(server, tool string) bool {
	srv, ok := s.Server(server)
	return ok && srv.Deferred(tool)
}

// Filter keeps the authorized tools of one server's list, in order.
func (s *Surface) Filter(server string, tools []Tool) []Tool {
	srv, ok := s.Server(server)
	if !ok {
		return nil
	}
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		if srv.Allowed(t.Name) {
			t.Server = srv.ID
			out = append(out, t)
		}
	}
	return out
}

// NotAvailableError is the one answer to a tool outside the surface.
// Unknown and unauthorized tools get the same words, so that nothing about
// what exists beyond the surface is learned from it.
type NotAvailableError struct {
	Server, Tool string
	// Session says the caller is in a session; User, outside a session,
	// that the user's own configuration is the boundary rather than a
	// recipe; Listed, that the caller is a client of mcp serve, which
	// knows the tools by the names the server lists (Server is that name).
	Session bool `json:",omitempty"`
	User    bool `json:",omitempty"`
	Listed  bool `json:",omitempty"`
	// Suggest are what the caller most likely meant, written as the
	// caller would write them (SERVER.TOOL, or a listed name), all of
	// them on the surface.
	Suggest []string `json:",omitempty"`
}

func (e *NotAvailableError) Error() string {
	msg := e.reason()
	if len(e.Suggest) > 0 {
		msg += " (did you mean " + strings.Join(e.Suggest, " or ") + "?)"
	}
	return msg
}

func (e *NotAvailableError) reason() string {
	name := e.Server
	if e.Tool != "" {
		name += "." + e.Tool
	}
	switch {
	case e.Listed:
		return name + " is not one of the tools this server lists"
	case e.Session:
		return name + " is not available in this session"
	case e.User && e.Tool == "":
		return name + " is not available: your MCP configuration has no such server"
	case e.User:
		return name + " is not available: your MCP configuration has no such server, or the server has no such tool"
	case e.Tool == "":
		return name + " is not available: the recipe does not authorize it"
	}
	return name + " is not available: the recipe does not authorize it, or the server has no such tool"
}

// Summary says the cause in a few words.
func (e *NotAvailableError) Summary() string {
	if e.Session {
		return "not available in this session"
	}
	return "not available here"
}

func (e *NotAvailableError) ExitCode() int { return exit.NotAvailable }

func sortServers(servers []*ServerSurface) {
	sort.Slice(servers, func(i, j int) bool { return servers[i].ID < servers[j].ID })
}

// Within is s restricted to what boundary authorizes: servers boundary
// does not hold are dropped, and each remaining server reaches only tools
// both allow. A session's surface is checked against the package boundary
// this way whenever it is loaded, so a state file cannot widen it.
func (s *Surface) Within(boundary *Surface) *Surface {
	out := *s
	out.Servers = nil
	for _, srv := range s.Servers {
		b, ok := boundary.Server(srv.ID)
		if !ok {
			continue
		}
		n := *srv
		n.All = srv.All && b.All
		switch {
		case srv.All && !b.All:
			n.Tools = slices.Clone(b.Tools)
		case !srv.All:
			n.Tools = slices.DeleteFunc(slices.Clone(srv.Tools), func(t string) bool { return !b.Allowed(t) })
		}
		n.Exclude = union(srv.Exclude, b.Exclude)
		out.Servers = append(out.Servers, &n)
	}
	return &out
}
