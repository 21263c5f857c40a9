package mux

import (
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

func TestConnWarnings_For(t *testing.T) {
	t.Parallel()
	var w ConnWarnings
	w.Add("b.x is not offered: why")
	w.Add("a.y is not offered: why")
	w.Add("a.y is not offered: why")
	all := &catalog.Surface{Servers: []*catalog.ServerSurface{{ID: "a", All: true}, {ID: "b", All: true}}}
	if got := w.For("a", all, true); !slices.Equal(got, []string{"a.y is not offered: why"}) {
		t.Errorf("For(a) = %q", got)
	}
	if got := w.For("", all, true); !slices.Equal(got, []string{"a.y is not offered: why", "b.x is not offered: why"}) {
		t.Errorf("For() = %q", got)
	}
	if got := (*ConnWarnings)(nil).For("", all, true); got != nil {
		t.Errorf("nil: %q", got)
	}
}

// A warning about a tool the surface does not authorize is not passed on:
// it would tell a session the tool exists. A warning about a server as a
// whole (which may name the host's paths) is passed on only when asked,
// not to a session's guest.
func TestConnWarnings_onlyTheSurface(t *testing.T) {
	t.Parallel()
	var w ConnWarnings
	w.Add("fake.drop_table is not offered: its schema is invalid")
	w.Add("fake.echo is not offered: its schema is invalid")
	w.Add("fake.weird name is not offered: why")
	w.Add("fake: not starting the installed pkg directly: /home/host/x is writable by others")
	w.Add("other: not starting the installed pkg directly: why")
	s := &catalog.Surface{Servers: []*catalog.ServerSurface{{ID: "fake", Tools: []string{"echo"}}}}
	for _, server := range []string{"", "fake"} {
		if got := w.For(server, s, false); !slices.Equal(got, []string{"fake.echo is not offered: its schema is invalid"}) {
			t.Errorf("For(%q) for a guest = %q", server, got)
		}
		want := []string{"fake.echo is not offered: its schema is invalid", "fake: not starting the installed pkg directly: /home/host/x is writable by others"}
		if got := w.For(server, s, true); !slices.Equal(got, want) {
			t.Errorf("For(%q) = %q", server, got)
		}
	}
}

// What the multiplexer passes on with a listing: warnings about the
// surface's tools to everyone, those about a server as a whole, which may
// name the host's paths, to everyone but a session's guest.
func TestMultiplexer_warningsForAGuest(t *testing.T) {
	t.Parallel()
	cfg := &Config{
		Surface:   &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", Tools: []string{"echo"}}}},
		Endpoints: map[string]manifests.Endpoint{"fake": testenv.FakeServer(t, testenv.ModeMeta)},
	}
	warnings := &ConnWarnings{}
	warnings.Add("fake: not starting the installed pkg directly: /home/host/x is writable by others")
	warnings.Add("fake.echo is not offered: why")
	warnings.Add("fake.drop_table is not offered: why")
	d, err := New(Options{
		Load:         func() (*Config, error) { return cfg, nil },
		NewEngine:    func(c *Config) *Engine { return NewEngine(c.Surface, c.Endpoints, os.LookupEnv, upstream.Options{}) },
		ConnWarnings: warnings,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer d.eng.Close()
	for _, guest := range []bool{false, true} {
		r := d.serve(t.Context(), &request{V: wireVersion, Op: "tools", Server: "fake"}, guest)
		want := []string{"fake.echo is not offered: why"}
		if !guest {
			want = append([]string{"fake: not starting the installed pkg directly: /home/host/x is writable by others"}, want...)
		}
		if !slices.Equal(r.Warnings, want) {
			t.Errorf("guest %v: warnings %q, want %q", guest, r.Warnings, want)
		}
	}
}

// An answer the guest does not read is given up after guestWriteTimeout,
// and the request with it: a guest that never reads holds nothing for
// long.
func TestMultiplexer_guestThatDoesNotRead(t *testing.T) {
	cfg := &Config{
		Surface:   &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", All: true}}},
		Endpoints: map[string]manifests.Endpoint{"fake": {ID: "fake", Command: "/nonexistent/server"}},
	}
	d, err := New(Options{
		Load:      func() (*Config, error) { return cfg, nil },
		NewEngine: func(c *Config) *Engine { return NewEngine(c.Surface, c.Endpoints, os.LookupEnv, upstream.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer d.eng.Close()
	old := guestWriteTimeout
	guestWriteTimeout = 200 * time.Millisecond
	defer func() { guestWriteTimeout = old }()
	client, server := net.Pipe()
	defer client.Close()
	done := make(chan struct{})
	go func() {
		d.handle(t.Context(), newClientConn(server), true)
		close(done)
	}()
	if _, err := client.Write([]byte(`{"v":4,"op":"tools","server":"fake"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the multiplexer still holds the request of a guest that does not read its answer")
	}
}
