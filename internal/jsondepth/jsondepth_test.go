package jsondepth

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestScanner(t *testing.T) {
	for _, c := range []struct {
		in           string
		opens, depth int
		deepest      int
	}{
		{`{"a":[1,{"b":2}]}`, 3, 0, 3},
		{`{"s":"[[[{{{"}`, 1, 0, 1},
		{`{"s":"\"[["}`, 1, 0, 1},
		{`["\\"]`, 1, 0, 1},
		{`[[`, 2, 2, 2},
		{`]]][`, 1, 1, 1},
	} {
		var s Scanner
		opens, deepest := 0, 0
		for i := range len(c.in) {
			if s.Step(c.in[i]) {
				opens++
			}
			deepest = max(deepest, s.Depth())
		}
		if opens != c.opens || s.Depth() != c.depth || deepest != c.deepest {
			t.Errorf("%q: %d opens, depth %d, deepest %d; want %d, %d, %d", c.in, opens, s.Depth(), deepest, c.opens, c.depth, c.deepest)
		}
	}
}

// For any valid JSON text, the scanner ends at depth 0 having seen the
// deepest nesting a decoder sees, and never opens inside a string.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`{"a":[1,{"b":2}]}`, `"[[{"`, `["\\\"[",{}]`, `[]`, `3`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		var s Scanner
		deepest := 0
		for i := range len(in) {
			s.Step(in[i])
			deepest = max(deepest, s.Depth())
		}
		want, depth := 0, 0
		dec := json.NewDecoder(strings.NewReader(in))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
				want = max(want, depth)
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
		if s.Depth() != 0 || deepest != want {
			t.Fatalf("%q: depth %d, deepest %d; want 0, %d", in, s.Depth(), deepest, want)
		}
	})
}
