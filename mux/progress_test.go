package mux

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// TestMultiplexer_progress: the progress of a call crosses the socket, in
// order, before its result, when the caller's hooks ask for it.
func TestMultiplexer_progress(t *testing.T) {
	t.Parallel()
	cfg := &Config{
		Surface:   &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", All: true}}},
		Endpoints: map[string]manifests.Endpoint{"fake": testenv.FakeServer(t, testenv.ModeMeta)},
	}
	dir, err := os.MkdirTemp("", "mux") // a socket's path is short; a test's temporary directory may not be
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	d, sock, served := serveConfig(t, cfg, dir)
	defer func() {
		d.Stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	var got []upstream.Progress
	hooks := &upstream.CallHooks{OnProgress: func(p upstream.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}}
	res, err := c.Invoke(upstream.WithCallHooks(ctx, hooks), "fake", "progress", Args{Pairs: []string{"steps=3", "ms=20"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.IsError {
		t.Fatalf("progress failed: %s", res.Result.Raw)
	}
	want := []upstream.Progress{{Progress: 1, Total: 3, Message: "step 1"}, {Progress: 2, Total: 3, Message: "step 2"}, {Progress: 3, Total: 3, Message: "step 3"}}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("progress = %v, want %v", got, want)
	}
}

// serveConfig serves cfg on a socket in dir (short enough for a socket's
// path; on Windows a named pipe, which the file there names) until the
// multiplexer stops; served gives what Serve returned.
func serveConfig(t *testing.T, cfg *Config, dir string) (d *Multiplexer, sock string, served chan error) {
	t.Helper()
	d, err := New(Options{
		Load:      func() (*Config, error) { return cfg, nil },
		NewEngine: func(c *Config) *Engine { return NewEngine(c.Surface, c.Endpoints, os.LookupEnv, upstream.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(dir, "s")
	ln, release, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	served = make(chan error, 1)
	go func() {
		err := d.Serve(context.Background(), ln)
		release()
		served <- err
	}()
	return d, sock, served
}
