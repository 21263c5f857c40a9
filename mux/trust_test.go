package mux

import (
	"context"
	"errors"
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

func isUntrusted(err error) bool {
	var u *manifests.UntrustedError
	return errors.As(err, &u)
}

// An engine refuses every request for a server of an untrusted directory,
// from the catalog cache too, and starts nothing for it.
func TestEngine_refusesUntrusted(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	ep := manifests.Endpoint{ID: "x", Command: "sh", Args: []string{"-c", "touch " + marker},
		Untrusted: &manifests.UntrustedError{Server: "x", Dir: "/x/recipe"}}
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "x", All: true}}}
	e := NewEngine(s, map[string]manifests.Endpoint{"x": ep}, os.LookupEnv, upstream.Options{})
	defer e.Close()
	cache, err := catalog.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e.SetCache(cache)
	// Tools listed while the directory was still trusted.
	key, _ := e.EndpointKey("x")
	if err := cache.Store(key, &catalog.CacheEntry{Server: "x", Fetched: time.Now(), Tools: []catalog.Tool{{Server: "x", Name: "t"}}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok := e.Cached("x"); ok {
		t.Error("Cached answered for an untrusted server")
	}
	for name, f := range map[string]func() error{
		"Tools":  func() error { _, err := e.Tools(ctx, "x"); return err },
		"Known":  func() error { _, err := e.Known(ctx, "x"); return err },
		"Bind":   func() error { _, err := e.Bind(ctx, "x"); return err },
		"Tool":   func() error { _, err := e.Tool(ctx, "x", "t"); return err },
		"Call":   func() error { _, err := e.Call(ctx, "x", "t", nil); return err },
		"Invoke": func() error { _, err := e.Invoke(ctx, "x", "t", Args{}); return err },
	} {
		if err := f(); !isUntrusted(err) {
			t.Errorf("%s: %v, want *manifests.UntrustedError", name, err)
		}
	}
	cat, _ := e.Catalog(ctx, Known)
	if !isUntrusted(cat.Servers[0].Err) {
		t.Errorf("Catalog: %v", cat.Servers[0].Err)
	}
	cfg := &Config{Surface: s, Endpoints: map[string]manifests.Endpoint{"x": ep}}
	if !isUntrusted(cfg.Untrusted()) {
		t.Error("Config.Untrusted found nothing")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the untrusted server was started")
	}
}

// A warm connection to a server whose directory stops being trusted is
// closed by the reload, and the server is refused from then on.
func TestEngine_reconfigureUntrusted(t *testing.T) {
	t.Parallel()
	e := fakeEngine(t, testenv.ModeDefault, upstream.Options{})
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := e.Tools(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	eps := map[string]manifests.Endpoint{}
	for id, ep := range e.endpoints {
		ep.Untrusted = &manifests.UntrustedError{Server: id, Dir: "/x", Changed: []string{"mcp.json"}}
		eps[id] = ep
	}
	e.Reconfigure(e.Surface(), eps)
	if _, err := e.Tools(ctx, "fake"); !isUntrusted(err) {
		t.Errorf("Tools after the reload: %v", err)
	}
	if st := e.Status(); len(st) != 0 {
		t.Errorf("connections after the reload: %+v", st)
	}
}

// The refusal crosses the multiplexer's socket as itself.
func TestWire_untrusted(t *testing.T) {
	in := &manifests.UntrustedError{Server: "contacts", Dir: "/x/recipe", Changed: []string{"mcp.json"}}
	out := decodeError(encodeError(&BindError{Server: "contacts", Err: in}))
	var u *manifests.UntrustedError
	if !errors.As(out, &u) || !reflect.DeepEqual(u, in) {
		t.Errorf("decoded %#v, want %#v", out, in)
	}
}

// A stamp of the trust store tells that it was written since.
func TestFileStamp_changed(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	store, _ := manifests.TrustStorePath()
	missing := stampTrustStore()
	if missing.changed() || (fileStamp{}).changed() {
		t.Fatal("changed before anything happened")
	}
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !missing.changed() {
		t.Error("a new store was not noticed")
	}
	s := stampTrustStore()
	if s.changed() {
		t.Error("changed without a write")
	}
	// An atomic rewrite of the same size is another file.
	tmp := store + ".tmp"
	if err := os.WriteFile(tmp, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, store); err != nil {
		t.Fatal(err)
	}
	if !s.changed() {
		t.Error("a rewritten store was not noticed")
	}
}
