package mux

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// Seen answers from what was seen, however long ago, within the surface,
// and starts nothing: a server not seen and a server of an untrusted
// directory have no tools, and no error.
func TestEngine_seen(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	start := func(id string) manifests.Endpoint {
		return manifests.Endpoint{ID: id, Command: "sh", Args: []string{"-c", "touch " + marker}}
	}
	untrusted := start("z")
	untrusted.Untrusted = &manifests.UntrustedError{Server: "z", Dir: "/x/recipe"}
	eps := map[string]manifests.Endpoint{"x": start("x"), "y": start("y"), "z": untrusted}
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{
		{ID: "x", All: true, Exclude: []string{"drop_table"}}, {ID: "y", All: true}, {ID: "z", All: true}}}
	e := NewEngine(s, eps, os.LookupEnv, upstream.Options{})
	defer e.Close()
	cache, err := catalog.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e.SetCache(cache)
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, id := range []string{"x", "z"} {
		key, _ := e.EndpointKey(id)
		entry := &catalog.CacheEntry{Server: id, Fetched: old, Capabilities: e.declared,
			Tools: []catalog.Tool{{Server: id, Name: "echo"}, {Server: id, Name: "drop_table"}}}
		if err := cache.Store(key, entry); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := e.Catalog(context.Background(), Seen)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, srv := range cat.Servers {
		if srv.Err != nil {
			t.Errorf("%s: %v", srv.ID, srv.Err)
		}
		got[srv.ID] = catalog.Names(srv.Tools)
	}
	want := map[string][]string{"x": {"echo"}, "y": {}, "z": {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Seen: %v, want %v", got, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a server was started")
	}
}

// A live connection answers with its own list, without a cache.
func TestEngine_seenLive(t *testing.T) {
	t.Parallel()
	e := fakeEngine(t, testenv.ModeDefault, upstream.Options{})
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cat, err := e.Catalog(ctx, Seen)
	if err != nil || len(cat.Servers[0].Tools) != 0 || e.connected("fake") {
		t.Fatalf("before any list: %+v, %v (connected %v)", cat.Servers, err, e.connected("fake"))
	}
	listed, err := e.Tools(ctx, "fake")
	if err != nil {
		t.Fatal(err)
	}
	cat, _ = e.Catalog(ctx, Seen)
	got := cat.Servers[0]
	if !reflect.DeepEqual(catalog.Names(got.Tools), catalog.Names(listed)) || got.Count != len(listed) || got.Protocol == "" {
		t.Errorf("Seen: %+v, want the %d tools listed and a protocol", got, len(listed))
	}
}
