package mux

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

func rawModernEngine(t *testing.T, raw *testenv.RawModern, cache *catalog.Cache) *Engine {
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "raw", All: true}}}
	e := NewEngine(s, map[string]manifests.Endpoint{"raw": raw.Endpoint("raw")}, os.LookupEnv, upstream.Options{})
	e.SetCache(cache)
	t.Cleanup(func() { e.Close() })
	return e
}

// The revision a server speaks is in the engine's status and catalog, from
// the connection and, once it is closed, from the catalog cache; the cache
// remembers beside it that the endpoint speaks 2026-07-28.
func TestEngine_protocol(t *testing.T) {
	t.Parallel()
	raw := testenv.NewRawModern(t)
	cache, err := catalog.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := rawModernEngine(t, raw, cache)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cat, err := e.Catalog(ctx, Counted)
	if err != nil || cat.Servers[0].Protocol != upstream.Modern {
		t.Fatalf("catalog: %v, %+v", err, cat.Servers)
	}
	if st := e.Status(); len(st) != 1 || st[0].Protocol != upstream.Modern {
		t.Errorf("status %+v", st)
	}
	if got := cache.Recall(raw.Endpoint("raw")); got != upstream.Modern {
		t.Errorf("remembered %q", got)
	}
	e.Close()
	e = rawModernEngine(t, raw, cache)
	cat, _ = e.Catalog(ctx, Known)
	if cat.Servers[0].Protocol != upstream.Modern || e.connected("raw") {
		t.Errorf("from the cache: %+v, connected %v", cat.Servers[0], e.connected("raw"))
	}
}

// A 2026-07-28 tools/list's ttlMs is how long the cache answers for it.
func TestEngine_listTTL(t *testing.T) {
	t.Parallel()
	raw := testenv.NewRawModern(t)
	raw.TTLMs.Store(0) // stale at once
	cache, err := catalog.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lists := func() int { return len(raw.Posts("tools/list")) }
	e := rawModernEngine(t, raw, cache)
	if _, err := e.Tools(ctx, "raw"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = rawModernEngine(t, raw, cache)
	if _, err := e.Tools(ctx, "raw"); err != nil || lists() != 2 {
		t.Fatalf("ttlMs 0: %v, %d lists, want the server asked again", err, lists())
	}
	e.Close()
	raw.TTLMs.Store(60_000)
	e = rawModernEngine(t, raw, cache)
	_, _ = e.Tools(ctx, "raw") // recorded with a minute to live
	e.Close()
	e = rawModernEngine(t, raw, cache)
	if _, err := e.Tools(ctx, "raw"); err != nil || lists() != 3 {
		t.Errorf("ttlMs 60000: %v, %d lists, want the cache to answer", err, lists())
	}
	key, _ := e.EndpointKey("raw")
	if entry := cache.Load(key); entry == nil || entry.TTL == nil || *entry.TTL != time.Minute || entry.Scope != "public" {
		t.Errorf("entry %+v", entry)
	}
}
