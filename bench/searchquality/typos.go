package main

import (
	"strings"
	"unicode"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
)

// typoMinRunes is the shortest word typo changes.
const typoMinRunes = 5

// typo misspells text the way a fast typist does: in its longest word of
// letters (at least typoMinRunes long; the first of equals), the two letters
// in its middle are swapped ("weather" gives "wetaher"). It reports false
// when text has no such word.
func typo(text string) (string, bool) {
	words := strings.Fields(text)
	best := -1
	for i, w := range words {
		rs := []rune(w)
		if len(rs) < typoMinRunes || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		if best < 0 || len(rs) > len([]rune(words[best])) {
			best = i
		}
	}
	if best < 0 {
		return text, false
	}
	rs := []rune(words[best])
	m := len(rs) / 2
	if rs[m-1] == rs[m] {
		return text, false // swapping equal letters changes nothing
	}
	rs[m-1], rs[m] = rs[m], rs[m-1]
	words[best] = string(rs)
	return strings.Join(words, " "), true
}

// typos returns the queries of qs that typo can misspell, misspelt.
func typos(qs []benchdata.Query) []benchdata.Query {
	var out []benchdata.Query
	for _, q := range qs {
		if t, ok := typo(q.Query); ok {
			q.Query = t
			out = append(out, q)
		}
	}
	return out
}

// halves splits qs into the queries at even and at odd positions, so that a
// choice tuned on one half can be checked on the other.
func halves(qs []benchdata.Query) (even, odd []benchdata.Query) {
	for i, q := range qs {
		if i%2 == 0 {
			even = append(even, q)
		} else {
			odd = append(odd, q)
		}
	}
	return even, odd
}
