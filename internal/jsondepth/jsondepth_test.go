package jsondepth

import "testing"

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
