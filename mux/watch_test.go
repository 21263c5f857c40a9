package mux

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv/tempdir"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A multiplexer reloads for the files it reads, one that appears where it
// would be read, an atomic replace of one, and the entries of a directory
// it watches whole; not for other files in a listed file's directory (a
// home directory, where ~/.claude.json lives, changes all the time).
// Where the backend is kqueue (byFile), the home directory itself is not
// watched either: kqueue would open every entry of it. On Windows only the
// way watch watches there (by directory) is tried: fsnotify's watch of a
// file there is its directory's, filtered by the file's name, and it
// reports no event for a file renamed over that name.
func TestWatch_onlyWhatIsRead(t *testing.T) {
	modes := []bool{false, true}
	if runtime.GOOS == "windows" {
		modes = []bool{watchFiles}
	}
	for _, byFile := range modes {
		t.Run(map[bool]string{false: "directories", true: "files"}[byFile], func(t *testing.T) {
			t.Parallel()
			testWatch(t, byFile)
		})
	}
}

func testWatch(t *testing.T, byFile bool) {
	home, agents := tempdir.New(t, "home"), tempdir.New(t, "agents")
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
	var mu sync.Mutex
	var lists [][]string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.watch(ctx, byFile, func(l []string) { mu.Lock(); lists = append(lists, l); mu.Unlock() })
	time.Sleep(200 * time.Millisecond) // the watcher is up

	reloadsAfter := func(change func()) int64 {
		t.Helper()
		before := d.reloads.Load()
		change()
		deadline := time.Now().Add(2*pollEvery + time.Second)
		for d.reloads.Load() == before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		return d.reloads.Load() - before
	}
	write := func(p string) func() {
		return func() {
			if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
				t.Error(err)
			}
		}
	}
	replace := func(p string) func() {
		return func() {
			tmp := p + ".new"
			if err := os.WriteFile(tmp, []byte("{ }\n"), 0o600); err != nil {
				t.Error(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Error(err)
			}
		}
	}
	remove := func(p string) func() {
		return func() {
			if err := os.Remove(p); err != nil {
				t.Error(err)
			}
		}
	}
	if n := reloadsAfter(write(filepath.Join(home, ".bash_history"))); n != 0 {
		t.Errorf("a file mcp does not read, beside one it does, caused %d reloads", n)
	}
	steps := []struct {
		what   string
		change func()
	}{
		{"editing " + read, write(read)},
		{"replacing " + read, replace(read)},
		{"editing it after the replace", write(read)},
		{"removing " + read, remove(read)},
		{"creating it again", write(read)},
		{"creating " + candidate, write(candidate)},
		{"editing it after it appeared", write(candidate)},
		{"creating a file in " + agents, write(filepath.Join(agents, "new.yaml"))},
	}
	for _, s := range steps {
		if n := reloadsAfter(s.change); n == 0 {
			t.Errorf("%s caused no reload", s.what)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, l := range lists {
		if slices.Contains(l, home) == byFile {
			t.Fatalf("byFile=%v: watched %q, home directory watched: %v", byFile, l, !byFile)
		}
	}
}
