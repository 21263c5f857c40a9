package mux

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A multiplexer reloads for the files it reads, one that appears where it
// would be read, and the entries of a directory it watches whole; not for
// other files in a listed file's directory (a home directory, where
// ~/.claude.json lives, changes all the time).
func TestWatch_onlyWhatIsRead(t *testing.T) {
	t.Parallel()
	home, agents := t.TempDir(), t.TempDir()
	read, candidate := filepath.Join(home, ".claude.json"), filepath.Join(home, ".mcp.json")
	if err := os.WriteFile(read, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Surface: &catalog.Surface{Mode: catalog.ModeCLI}, Endpoints: map[string]manifests.Endpoint{}, Watch: []string{read, candidate, agents}}
	d, err := New(Options{
		Load:      func() (*Config, error) { return cfg, nil },
		NewEngine: func(c *Config) *Engine { return NewEngine(c.Surface, c.Endpoints, os.LookupEnv, upstream.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.watch(ctx)
	time.Sleep(200 * time.Millisecond) // the watcher is up

	write := func(p string) {
		t.Helper()
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reloadsAfter := func(p string) int64 {
		t.Helper()
		before := d.reloads.Load()
		write(p)
		deadline := time.Now().Add(2 * time.Second)
		for d.reloads.Load() == before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		return d.reloads.Load() - before
	}
	if n := reloadsAfter(filepath.Join(home, ".bash_history")); n != 0 {
		t.Errorf("a file mcp does not read, beside one it does, caused %d reloads", n)
	}
	for _, p := range []string{read, candidate, filepath.Join(agents, "new.yaml")} {
		if n := reloadsAfter(p); n == 0 {
			t.Errorf("writing %s caused no reload", p)
		}
	}
}
