package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsh/mcp/catalog"
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
	return a.withBackend(func(ctx context.Context, eng mux.Backend) error {
		if c.Server != "" {
			if _, ok := eng.Surface().Server(c.Server); !ok {
				return &catalog.NotAvailableError{Server: c.Server}
			}
		}
		tools, err := searchTools(ctx, a, eng, strings.Join(c.Query, " "), searchOptions{limit: c.Limit, server: c.Server})
		if err != nil {
			return err
		}
		if a.globals.JSON {
			out := make([]toolJSON, len(tools))
			for i, t := range tools {
				out[i] = newToolJSON(t)
			}
			return writeJSON(a.stdout, out)
		}
		if len(tools) == 0 {
			fmt.Fprintln(a.stderr, "mcp: no tools match; `mcp list` shows every server, `mcp list SERVER` its tools")
			return nil
		}
		for _, t := range tools {
			fmt.Fprintln(a.stdout, toolLine(t))
		}
		return nil
	})
}

type searchOptions struct {
	limit  int
	server string
}

// searchTools ranks the surface's tools for a query. Tool lists come from
// the catalog cache, so a server seen before is not contacted; one never
// seen is listed once. The index is persisted per surface and only servers
// whose tool lists changed are re-indexed.
func searchTools(ctx context.Context, a *app, eng mux.Backend, query string, opt searchOptions) ([]catalog.Tool, error) {
	s := eng.Surface()
	byID := map[string]catalog.Tool{}
	lists := map[string][]catalog.Tool{}
	for _, srv := range s.Servers {
		if opt.server != "" && srv.ID != opt.server {
			if o, ok := s.Server(opt.server); !ok || o.ID != srv.ID {
				continue
			}
		}
		tools, ok := eng.Cached(srv.ID)
		if !ok {
			var err error
			if tools, err = eng.Tools(ctx, srv.ID); err != nil {
				a.warn("%s is not searched: %s", srv.ID, oneLine(err))
				continue
			}
		}
		lists[srv.ID] = tools
		for _, t := range tools {
			byID[t.ID()] = t
		}
	}
	ix, err := openIndex(s, eng)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	indexed := ix.Servers()
	for id, tools := range lists {
		if indexed[id] != search.Fingerprint(search.ServerInfo{}, tools) {
			if err := ix.Replace(id, search.ServerInfo{}, tools); err != nil {
				return nil, err
			}
		}
	}
	server := ""
	if opt.server != "" {
		srv, _ := s.Server(opt.server)
		server = srv.ID
	}
	hits, err := ix.Search(query, search.Options{Limit: opt.limit, Server: server, Only: s.Allowed})
	if err != nil {
		return nil, err
	}
	out := make([]catalog.Tool, 0, len(hits))
	for _, h := range hits {
		if t, ok := byID[h.Server+"."+h.Name]; ok && s.Allowed(t.Server, t.Name) {
			out = append(out, t)
		}
	}
	return out, nil
}

// openIndex opens the persisted index of this surface, or an index in
// memory when it cannot be had (another process holds it, no cache dir).
func openIndex(s *catalog.Surface, eng mux.Backend) (*search.Index, error) {
	base, err := catalog.DefaultCacheDir()
	if err != nil {
		return search.OpenMem()
	}
	dir := filepath.Join(filepath.Dir(base), "index", surfaceKey(s, eng))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return search.OpenMem()
	}
	ix, err := search.Open(dir)
	if errors.Is(err, search.ErrLocked) {
		return search.OpenMem()
	}
	return ix, err
}

// surfaceKey names an index: one per surface and set of endpoints, so an
// index never holds a tool another surface authorized.
func surfaceKey(s *catalog.Surface, eng mux.Backend) string {
	h := sha256.New()
	b, _ := json.Marshal(s)
	h.Write(b)
	for _, srv := range s.Servers {
		if key, ok := eng.EndpointKey(srv.ID); ok {
			h.Write([]byte(key))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}
