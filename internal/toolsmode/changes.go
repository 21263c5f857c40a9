package toolsmode

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/search"
)

// toolsChanged follows a server's new list of authorized tools: a tool it
// added is served (at once when eager, behind mcp_search when deferred), a
// tool it dropped is withdrawn, and a tool whose definition changed is
// served as it is now. The surface's rules apply to the new list as to the
// first one: "*" lets through tools a server adds later. The SDK tells the
// client with tools/list_changed.
func (s *Server) toolsChanged(server string, tools []catalog.Tool) {
	if _, ok := s.eng.Surface().Server(server); !ok {
		return
	}
	s.activating.Lock()
	defer s.activating.Unlock()
	if s.life.Err() != nil {
		return
	}
	old := s.byName
	s.lists[server] = tools
	deferred := s.entries(func(t catalog.Tool) bool { return t.Server == server })

	var gone, changed []*entry
	for name, was := range old {
		now, ok := s.byName[name]
		switch {
		case !ok:
			gone = append(gone, was)
		case !sameEntry(was, now) && s.isActive(name):
			changed = append(changed, now)
		}
	}
	// Out of the gate first, then out of the registry.
	var names []string
	for _, e := range gone {
		names = append(names, e.name)
	}
	if len(names) > 0 {
		s.deactivate(names...)
		s.srv.RemoveTools(names...)
	}
	for _, e := range changed {
		s.srv.AddTool(e.def, s.proxy(e))
	}
	var added []string
	for name, e := range s.byName {
		if _, had := old[name]; !had && !e.deferred {
			// In the registry first, then through the gate.
			s.srv.AddTool(e.def, s.proxy(e))
			added = append(added, name)
		}
	}
	s.activate(added...)
	s.reindex(server, deferred[server])
}

// reindex puts a server's deferred tools in mcp_search's index, making the
// index and mcp_search when the server is the first to have any.
func (s *Server) reindex(server string, deferred []catalog.Tool) {
	if s.index == nil {
		if len(deferred) == 0 {
			return
		}
		ix, err := search.OpenMem()
		if err != nil {
			s.warn("the deferred tools of %s are not served: %s", server, err)
			return
		}
		s.index = ix
		s.srv.AddTool(searchToolDef(), s.search)
		s.activate(SearchTool)
	}
	if err := s.index.Replace(server, search.ServerInfo{}, deferred); err != nil {
		s.warn("the deferred tools of %s are not indexed again: %s", server, err)
	}
}

// sameEntry says whether two entries serve the same tool the same way.
func sameEntry(a, b *entry) bool {
	return a.name == b.name && a.deferred == b.deferred && a.tool.ID() == b.tool.ID() && bytes.Equal(a.tool.Raw, b.tool.Raw)
}

// maxInstructions bounds what one server's instructions add to the
// server's own.
const maxInstructions = 8 << 10

// instructions passes on what each server of the surface said about how
// to use it, under its name as the exposed tools carry it: servers seen so
// far (connected, or in the catalog cache), in the surface's order.
func (s *Server) instructions() string {
	var parts []string
	for _, srv := range s.eng.Surface().Servers {
		text, ok := s.eng.Instructions(srv.ID)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("Server %s (its tools are named %s__TOOL):\n%s",
			srv.ID, manifests.CanonicalID(srv.ID), clip.Runes(strings.TrimSpace(text), maxInstructions)))
	}
	return strings.Join(parts, "\n\n")
}
