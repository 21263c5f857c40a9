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
)

// A call in flight when its multiplexer stops is told why, every time:
// never its own cancellation ("context canceled"), which the stop causes.
func TestMultiplexer_stopDuringCall(t *testing.T) {
	t.Parallel()
	cfg := &Config{
		Surface:   &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", All: true}}},
		Endpoints: map[string]manifests.Endpoint{"fake": testenv.FakeServer(t, testenv.ModeMeta)},
	}
	dir, err := os.MkdirTemp("", "mux")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i := range 20 {
		d, sock, served := serveConfig(t, cfg, dir)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := Dial(ctx, sock)
		if err != nil {
			t.Fatal(err)
		}
		called := make(chan error, 1)
		go func() {
			_, err := c.Invoke(ctx, "fake", "progress", Args{Pairs: []string{"steps=1000", "ms=30"}})
			called <- err
		}()
		// On to the server: its connection is made and the call sent.
		for st := d.eng.Status(); len(st) == 0 || !st[0].Connected; st = d.eng.Status() {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		d.stopFor(stopByCommand)
		err = <-called
		var stopped *StoppedError
		if !errors.As(err, &stopped) || stopped.Call != "fake.progress" || stopped.Why != stopByCommand {
			t.Errorf("stop %d: the call's error is %v, want that the multiplexer was stopped (%s) during the call of fake.progress", i, err, stopByCommand)
		}
		c.Close()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
}
