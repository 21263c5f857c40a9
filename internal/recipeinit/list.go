package recipeinit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/explain"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

// listTools fills in the tools of each server that can start, by listing
// them through a recipe that is what init will write with every tool
// allowed, in a private directory of its own, trusted for this listing
// only. A server that cannot be listed keeps no tools, and why.
func listTools(ctx context.Context, servers []*server, open func(context.Context, mux.Target) (mux.Backend, error)) {
	var listable []*server
	for _, s := range servers {
		if s.why == "" {
			listable = append(listable, s)
		}
	}
	if len(listable) == 0 {
		return
	}
	fail := func(why string) {
		for _, s := range listable {
			s.why = why
		}
	}
	tmp, err := os.MkdirTemp("", "mcp-init-*")
	if err != nil {
		fail(err.Error())
		return
	}
	defer os.RemoveAll(tmp)
	if err := writeListing(tmp, listable); err != nil {
		fail(err.Error())
		return
	}
	t, err := mux.HostTarget(tmp, false, "")
	if err != nil {
		fail(err.Error())
		return
	}
	t.TrustOnce = true
	b, err := open(ctx, t)
	if err != nil {
		fail(explain.Summary(err))
		return
	}
	defer b.Close()
	cat, err := b.Catalog(ctx, mux.Listed)
	if err != nil {
		fail(explain.Summary(err))
		return
	}
	byID := map[string]*server{}
	for _, s := range listable {
		byID[manifests.CanonicalID(s.id)] = s
	}
	for _, st := range cat.Servers {
		s := byID[manifests.CanonicalID(st.ID)]
		switch {
		case s == nil:
		case st.Err != nil:
			s.why = explain.Summary(st.Err)
		default:
			s.tools = catalog.Names(st.Tools)
			if s.tools == nil {
				s.tools = []string{}
			}
		}
	}
	for _, s := range listable {
		if s.tools == nil && s.why == "" {
			s.why = "it listed nothing"
		}
	}
}

// writeListing writes the recipe that lists servers' tools: their
// entries as this machine has them, every tool allowed.
func writeListing(dir string, servers []*server) error {
	entries := map[string]any{}
	var bound []serverEntry
	for _, s := range servers {
		entries[s.id] = s.local
		bound = append(bound, serverEntry{ID: s.id, Tools: toolsEntry{Include: []string{"*"}}})
	}
	pkg, err := json.Marshal(map[string]any{"pi": map[string]any{"mcp": piMCP{Manifests: []string{"mcp.json"}, Servers: bound}}})
	if err != nil {
		return err
	}
	man, err := json.Marshal(map[string]any{"mcpServers": entries})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "mcp.json"), man, 0o600)
}
