package lab

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	index "github.com/blevesearch/bleve_index_api"
)

// Expansion bounds.
const (
	compoundMaxWords = 3   // most query words joined into one compound
	prefixScan       = 256 // most index words read for a word's completions
)

// expand adds the scores of the index words that a query's words stand for
// beyond themselves and their back-off (exact holds the query's words, dfs
// their document frequencies): the stems of the words tools have
// (StemAll), the compounds of adjacent words (Compound), the completions of
// a missing word (Prefix) and the vocabulary bridge (Bridge).
func (q *ranking) expand(exact []string, dfs []int) error {
	t := q.ix.tune
	field := t.Clauses[0].Field
	var stems, compounds, prefixes, bridge [][]string
	short := t.ExpandMaxWords <= 0 || len(exact) <= t.ExpandMaxWords
	for i, w := range exact {
		if !short {
			break
		}
		if t.StemAll > 0 && dfs[i] > 0 && utf8.RuneCountInString(w) >= stemMinRunes && letters(w) {
			v, err := variants(q.r, field, w)
			if err != nil {
				return err
			}
			if len(v) > 0 {
				stems = append(stems, v)
			}
		}
		if t.Prefix > 0 && dfs[i] == 0 {
			p, err := completions(q.r, field, w)
			if err != nil {
				return err
			}
			if len(p) > 0 {
				prefixes = append(prefixes, p)
			}
		}
		if t.Bridge > 0 && !t.BridgeMerged && (!t.BridgeMissing || dfs[i] == 0) {
			b, err := bridged(q.r, field, w, t)
			if err != nil {
				return err
			}
			if len(b) > 0 {
				bridge = append(bridge, b)
			}
		}
	}
	if t.Compound > 0 {
		c, sizes, err := compoundsOf(q.r, field, exact)
		if err != nil {
			return err
		}
		if !t.CompoundPerWord {
			compounds = c
		}
		for i, g := range c {
			if t.CompoundPerWord {
				if _, err := q.add([][]string{g}, t.Clauses, t.Compound*float64(sizes[i]), false); err != nil {
					return err
				}
			}
		}
	}
	for _, x := range []struct {
		words  [][]string
		weight float64
	}{{stems, t.StemAll}, {compounds, t.Compound}, {prefixes, t.Prefix}, {bridge, t.Bridge}} {
		if _, err := q.add(x.words, t.Clauses, x.weight, false); err != nil {
			return err
		}
	}
	return nil
}

// has reports whether field holds term.
func has(r index.IndexReader, field, term string) (bool, error) {
	d, err := r.FieldDictPrefix(field, []byte(term))
	if err != nil {
		return false, err
	}
	found := false
	if e, err := d.Next(); err == nil && e != nil && e.Term == term {
		found = true
	}
	return found, d.Close()
}

// compoundsOf returns, each as a group of its own, the index words that two
// or three adjacent query words make when joined ("screen shot":
// screenshot), other than the query's own words, and how many words each
// joins.
func compoundsOf(r index.IndexReader, field string, words []string) ([][]string, []int, error) {
	own := map[string]bool{}
	for _, w := range words {
		own[w] = true
	}
	if len(words) < 2 {
		return nil, nil, nil
	}
	c, ok := r.(index.IndexReaderContains)
	if !ok {
		return nil, nil, fmt.Errorf("lab: index reader cannot look terms up")
	}
	dict, err := c.FieldDictContains(field)
	if err != nil {
		return nil, nil, err
	}
	var out [][]string
	var sizes []int
	for i := range words {
		joined := words[i]
		for j := i + 1; j < len(words) && j-i < compoundMaxWords; j++ {
			joined += words[j]
			if own[joined] {
				continue
			}
			ok, err := dict.Contains([]byte(joined))
			if err != nil {
				return nil, nil, err
			}
			if ok {
				own[joined] = true
				out = append(out, []string{joined})
				sizes = append(sizes, j-i+1)
			}
		}
	}
	return out, sizes, nil
}

// completions returns the index words that begin with w, a word of letters
// no tool has ("config": configuration, configure).
func completions(r index.IndexReader, field, w string) ([]string, error) {
	if utf8.RuneCountInString(w) < stemMinRunes || !letters(w) {
		return nil, nil
	}
	d, err := r.FieldDictPrefix(field, []byte(w))
	if err != nil {
		return nil, err
	}
	return drain(d, prefixScan, func(t string) bool { return t != w })
}

// bridged returns the index words of the vocabulary bridge's set of w, each
// with its plural.
func bridged(r index.IndexReader, field, w string, t Tuning) ([]string, error) {
	var out []string
	var sets []string
	if t.Bridge <= 0 {
		return nil, nil
	}
	if !t.BridgeActionsOnly {
		sets = append(sets, related(w, false)...)
	}
	if !t.BridgeThingsOnly {
		sets = append(sets, related(w, true)...)
	}
	for _, m := range sets {
		for _, term := range []string{m, m + "s"} {
			ok, err := has(r, field, term)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, term)
			}
		}
	}
	return out, nil
}

// nameKey is text with everything but letters and digits taken out,
// lowercase: a tool's name or a query compared as one word.
func nameKey(text string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, text)
}
