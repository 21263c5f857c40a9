package mux

import (
	"slices"
	"testing"
)

func TestConnWarnings_For(t *testing.T) {
	t.Parallel()
	var w ConnWarnings
	w.Add("b.x is not offered: why")
	w.Add("a.y is not offered: why")
	w.Add("a.y is not offered: why")
	all := func(string, string) bool { return true }
	if got := w.For("a", all); !slices.Equal(got, []string{"a.y is not offered: why"}) {
		t.Errorf("For(a) = %q", got)
	}
	if got := w.For("", all); !slices.Equal(got, []string{"a.y is not offered: why", "b.x is not offered: why"}) {
		t.Errorf("For() = %q", got)
	}
	if got := (*ConnWarnings)(nil).For("", all); got != nil {
		t.Errorf("nil: %q", got)
	}
}

// A warning about a tool the surface does not authorize is not passed on:
// it would tell a session the tool exists.
func TestConnWarnings_onlyTheSurface(t *testing.T) {
	t.Parallel()
	var w ConnWarnings
	w.Add("fake.drop_table is not offered: its schema is invalid")
	w.Add("fake.echo is not offered: its schema is invalid")
	w.Add("fake.weird name is not offered: why")
	allowed := func(server, tool string) bool { return server == "fake" && tool == "echo" }
	for _, server := range []string{"", "fake"} {
		if got := w.For(server, allowed); !slices.Equal(got, []string{"fake.echo is not offered: its schema is invalid"}) {
			t.Errorf("For(%q) = %q", server, got)
		}
	}
}
