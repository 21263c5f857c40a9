package mux

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

func fakeEngine(t *testing.T, mode string, opts upstream.Options) *Engine {
	t.Helper()
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", All: true}}}
	ep := testenv.FakeServer(t, mode)
	return NewEngine(s, map[string]manifests.Endpoint{"fake": ep}, os.LookupEnv, opts)
}

// A server that never answers initialize fails the request that waits for
// it, and neither the engine's status nor its close trips over the failed
// connection (they used to call methods of a nil connection).
func TestEngine_failedConnect(t *testing.T) {
	t.Parallel()
	e := fakeEngine(t, testenv.ModeSilent, upstream.Options{ConnectTimeout: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := e.Tools(ctx, "fake")
	var ue *upstream.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("Tools: %v, want *upstream.UnavailableError", err)
	}
	_ = e.Status()
	if err := e.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// Closing the engine while a server is still starting (session stop, a
// reload, the multiplexer stopping) ends the dial without a panic.
func TestEngine_closeDuringConnect(t *testing.T) {
	t.Parallel()
	e := fakeEngine(t, testenv.ModeSilent, upstream.Options{ConnectTimeout: 30 * time.Second})
	done := make(chan error, 1)
	go func() {
		_, err := e.Tools(context.Background(), "fake")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // the server has started and is silent
	_ = e.Status()
	if err := e.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Tools succeeded against a silent server")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Tools still waits after Close")
	}
}
