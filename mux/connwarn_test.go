package mux

import (
	"slices"
	"testing"

	"github.com/mcpsh/mcp/catalog"
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
