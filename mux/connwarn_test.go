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
	if got := w.For("a"); !slices.Equal(got, []string{"a.y is not offered: why"}) {
		t.Errorf("For(a) = %q", got)
	}
	if got := w.For(""); !slices.Equal(got, []string{"a.y is not offered: why", "b.x is not offered: why"}) {
		t.Errorf("For() = %q", got)
	}
	if got := (*ConnWarnings)(nil).For(""); got != nil {
		t.Errorf("nil: %q", got)
	}
}
