package mux

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A tool list in the shared catalog cache answers only an engine whose
// connections declare what the list was obtained with: one that relays
// requests for input (and so declares URL elicitation) does not answer
// for one that does not, and each keeps its own entry.
func TestEngine_CacheByDeclaration(t *testing.T) {
	t.Parallel()
	cache, err := catalog.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	relay := func(context.Context, string, json.RawMessage) (json.RawMessage, bool, error) { return nil, false, nil }
	relaying := fakeEngine(t, testenv.ModeDefault, upstream.Options{RelayElicitation: relay})
	plain := fakeEngine(t, testenv.ModeDefault, upstream.Options{})
	for _, e := range []*Engine{relaying, plain} {
		e.SetCache(cache)
		t.Cleanup(func() { _ = e.Close() })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := relaying.Tools(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	if _, ok := relaying.Cached("fake"); !ok {
		t.Fatal("the engine that listed has no cache entry")
	}
	if tools, ok := plain.Cached("fake"); ok {
		t.Fatalf("an engine that declares less answers from another's list: %d tools", len(tools))
	}
	k1, _ := relaying.EndpointKey("fake")
	k2, _ := plain.EndpointKey("fake")
	if k1 == k2 {
		t.Errorf("both engines key the list %s", k1)
	}
	entry := cache.Load(k1)
	if entry == nil || entry.Capabilities != relaying.opts.Declared() || entry.Capabilities == plain.opts.Declared() {
		t.Errorf("the entry does not say what was declared: %+v", entry)
	}
}
