package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/mcpsh/mcp/catalog"
)

// Source is what a search reads: the authorized surface, each server's
// authorized tools (from the catalog cache when the server has been seen,
// else listed), and a key for each server's tool list: its endpoint and
// what the source's connections declare to it, so that an index never
// holds a list another declaration obtained.
type Source interface {
	Surface() *catalog.Surface
	Known(ctx context.Context, server string) ([]catalog.Tool, error)
	EndpointKey(server string) (key string, ok bool)
}

// Request is one query: a few words, at most Limit results, only Server's
// tools when set. The persisted indexes are kept in the user's cache
// directory.
type Request struct {
	Text   string
	Limit  int
	Server string
}

// Answer is the ranked tools, best first, and the servers that could not
// be searched.
type Answer struct {
	Tools   []catalog.Tool
	Skipped []Skip
}

// Skip is a server left out of a search, and why.
type Skip struct {
	Server string
	Err    error
}

// Run answers a query over a surface. Tool lists come from src, so a
// server seen before is not contacted; the index is persisted per surface
// and set of endpoints, and only servers whose tool lists changed are
// re-indexed. Every hit goes through the surface's gate. A server not in
// the surface is a *catalog.NotAvailableError.
func Run(ctx context.Context, src Source, req Request) (*Answer, error) {
	s := src.Surface()
	only := ""
	if req.Server != "" {
		srv, ok := s.Server(req.Server)
		if !ok {
			return nil, s.NotAvailable(req.Server, "")
		}
		only = srv.ID
	}
	ans := &Answer{}
	byID := map[string]catalog.Tool{}
	lists := map[string][]catalog.Tool{}
	for _, srv := range s.Servers {
		if only != "" && srv.ID != only {
			continue
		}
		tools, err := src.Known(ctx, srv.ID)
		if err != nil {
			ans.Skipped = append(ans.Skipped, Skip{Server: srv.ID, Err: err})
			continue
		}
		lists[srv.ID] = tools
		for _, t := range tools {
			byID[t.ID()] = t
		}
	}
	ix, err := openIndex(surfaceKey(s, src))
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	indexed := ix.Servers()
	for id, tools := range lists {
		if indexed[id] != Fingerprint(ServerInfo{}, tools) {
			if err := ix.Replace(id, ServerInfo{}, tools); err != nil {
				return nil, err
			}
		}
	}
	hits, err := ix.Search(req.Text, Options{Limit: req.Limit, Server: only, Only: s.Allowed})
	if err != nil {
		return nil, err
	}
	ans.Tools = make([]catalog.Tool, 0, len(hits))
	for _, h := range hits {
		if t, ok := byID[h.Server+"."+h.Name]; ok && s.Allowed(t.Server, t.Name) {
			ans.Tools = append(ans.Tools, t)
		}
	}
	return ans, nil
}

// DefaultIndexDir is where the persisted indexes are kept, one directory
// each: mcp/index under the user's cache directory, beside the catalog
// cache.
func DefaultIndexDir() (string, error) {
	base, err := catalog.DefaultCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(base), "index"), nil
}

// openIndex opens the persisted index named key in DefaultIndexDir, or an
// index in memory when it cannot be had (another process holds it, no
// cache dir).
func openIndex(key string) (*Index, error) {
	base, err := DefaultIndexDir()
	if err != nil {
		return OpenMem()
	}
	dir := filepath.Join(base, key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return OpenMem()
	}
	ix, err := Open(dir)
	if errors.Is(err, ErrLocked) {
		return OpenMem()
	}
	return ix, err
}

// surfaceKey names an index: one per surface and set of endpoints, so an
// index never holds a tool another surface authorized.
func surfaceKey(s *catalog.Surface, src Source) string {
	h := sha256.New()
	b, _ := json.Marshal(s)
	h.Write(b)
	for _, srv := range s.Servers {
		if key, ok := src.EndpointKey(srv.ID); ok {
			h.Write([]byte(key))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}
