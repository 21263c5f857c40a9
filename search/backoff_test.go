package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withoutBackoff ranks text as Search does but for the back-off.
func withoutBackoff(t *testing.T, text string, opt Options) []string {
	t.Helper()
	r := DefaultRanking()
	r.StemBackoff, r.FuzzyBackoff = 0, 0
	return mustSearch(t, memIndexWith(t, r), text, opt)
}

func TestIndex_SearchBackoff(t *testing.T) {
	ix := memIndex(t)
	tests := map[string]string{
		"forecasting":     "weather.get-forecast",  // a variant of "forecast"
		"dividend":        "finance.get_dividends", // of "dividends"
		"directories":     "files.list_directory",  // of "directory"
		"weahter forcast": "weather.get-forecast",  // swapped and missing letters
		"dividnds":        "finance.get_dividends", // a missing letter
		"curent pricing":  "finance.get_current_stock_price",
	}
	for q, want := range tests {
		if got := mustSearch(t, ix, q, Options{Limit: 3}); len(got) == 0 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
		if got := withoutBackoff(t, q, Options{Limit: 3}); len(got) > 0 && got[0] == want {
			t.Errorf("Search(%q) without back-off = %v: the test shows nothing", q, got)
		}
	}
	// Known words are not backed off, and neither are short words, words
	// with digits, or misspelt first letters.
	for _, q := range []string{"stock", "newz", "n3ws", "xeather", "zzzzzzzz"} {
		a, b := mustSearch(t, ix, q, Options{}), withoutBackoff(t, q, Options{})
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("Search(%q) changed by back-off (-without +with):\n%s", q, diff)
		}
	}
}

func TestStem(t *testing.T) {
	for w, want := range map[string]string{"parking": "park", "forecasts": "forecast", "happy": "happi", "news": "new"} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestOneEdit(t *testing.T) {
	yes := [][2]string{
		{"weather", "wether"}, {"wether", "weather"}, {"weather", "weahter"}, {"weather", "weathar"},
		{"weather", "weathers"}, {"weather", "eather"}, {"ab", "ba"}, {"größe", "größen"},
	}
	no := [][2]string{
		{"weather", "weather"}, {"weather", "whaeter"}, {"weather", "weath"}, {"ab", "cd"},
		{"forecast", "forcasts"}, {"", "ab"},
	}
	for _, p := range yes {
		if !oneEdit(p[0], p[1]) {
			t.Errorf("oneEdit(%q, %q) = false", p[0], p[1])
		}
	}
	for _, p := range no {
		if oneEdit(p[0], p[1]) {
			t.Errorf("oneEdit(%q, %q) = true", p[0], p[1])
		}
	}
}
