package search

import (
	"errors"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	index "github.com/blevesearch/bleve_index_api"
)

// Expansion bounds.
const (
	compoundMaxWords = 3   // most adjacent query words joined into one compound
	prefixScan       = 256 // most index words read for a word's completions
)

// expand adds the scores of the index words that a query's words stand for
// beyond themselves and their back-off (exact holds the query's words, dfs
// their document frequencies): the compounds of adjacent words (Compound),
// and, off by default, the stems of the words tools have (StemAll), the
// completions of a missing word (Prefix) and the vocabulary bridge
// (Bridge).
func (q *ranking) expand(exact []string, dfs []int) error {
	t := q.t
	field := t.Clauses[0].Field
	var stems, joined, prefixes, bridge [][]string
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
		if b := t.Bridge; b.Weight > 0 && !b.Merged && (!b.Missing || dfs[i] == 0) {
			more, err := q.bridged(w, b)
			if err != nil {
				return err
			}
			if len(more) > 0 {
				bridge = append(bridge, more)
			}
		}
	}
	if t.Compound > 0 {
		c, sizes, err := compounds(q.r, field, exact)
		if err != nil {
			return err
		}
		if !t.CompoundPerWord {
			joined = c
		}
		for i, g := range c {
			if t.CompoundPerWord {
				if err := q.add([][]string{g}, t.Clauses, t.Compound*float64(sizes[i]), false); err != nil {
					return err
				}
			}
		}
	}
	for _, x := range []struct {
		words  [][]string
		weight float64
	}{{stems, t.StemAll}, {joined, t.Compound}, {prefixes, t.Prefix}, {bridge, t.Bridge.Weight}} {
		if err := q.add(x.words, t.Clauses, x.weight, false); err != nil {
			return err
		}
	}
	return nil
}

// compounds returns, each as a word of its own, the index words of field
// that two or three adjacent query words make when joined ("screen shot":
// screenshot; "search mastra docs": searchmastradocs, the joined form of
// searchMastraDocs), other than the query's own words, and how many words
// each joins. Adjacent means next to each other among the query's distinct
// words.
func compounds(r index.IndexReader, field string, words []string) ([][]string, []int, error) {
	own := make(map[string]bool, len(words))
	for _, w := range words {
		own[w] = true
	}
	if len(words) < 2 {
		return nil, nil, nil
	}
	dict, err := contains(r, field)
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

// contains returns what tells whether field holds a term: scorch's readers
// (every index of this package's) look a term up in each segment's
// dictionary at once, which costs a tenth of reading a dictionary from the
// term on.
func contains(r index.IndexReader, field string) (index.FieldDictContains, error) {
	c, ok := r.(index.IndexReaderContains)
	if !ok {
		return nil, errors.New("search: index reader cannot look terms up")
	}
	return c.FieldDictContains(field)
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

// bridged returns the index words (of the first clause's field) of the
// bridge's sets of w, each with its plural.
func (q *ranking) bridged(w string, b Bridge) ([]string, error) {
	if b.Weight <= 0 {
		return nil, nil
	}
	var sets []string
	if !b.ActionsOnly {
		sets = append(sets, related(q.ix.bridge[0], w)...)
	}
	if !b.ThingsOnly {
		sets = append(sets, related(q.ix.bridge[1], w)...)
	}
	var out []string
	for _, m := range sets {
		for _, term := range []string{m, m + "s"} {
			ok, err := has(q.r, q.t.Clauses[0].Field, term)
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

// related returns the other words of the set of bridge (see bridgeMap)
// that w, a lowercase word, belongs to, or nil. A plural finds its
// singular's set ("pictures", "boxes"), but no other form does: a stem
// would take "set" for "settings".
func related(bridge map[string][]string, w string) []string {
	if r, ok := bridge[w]; ok {
		return r
	}
	for _, suffix := range []string{"s", "es"} {
		if s, ok := strings.CutSuffix(w, suffix); ok && bridge[s] != nil {
			return bridge[s]
		}
	}
	return nil
}

// bridgeMap maps each word of sets to the other words of its set.
func bridgeMap(sets [][]string) map[string][]string {
	if len(sets) == 0 {
		return nil
	}
	bridge := map[string][]string{}
	for _, g := range sets {
		for _, a := range g {
			var others []string
			for _, b := range g {
				if b != a {
					others = append(others, b)
				}
			}
			bridge[a] = others
		}
	}
	return bridge
}

// nameKey is text with everything but letters and digits taken out, in
// lower case: a tool's name, or a query, compared as one word.
func nameKey(text string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, text)
}

// nameFirst lifts the tools of out whose name, or server and name, is the
// query (key, its nameKey) above all others.
func nameFirst(out []scored, key string) {
	if key == "" {
		return
	}
	var top float64
	for _, f := range out {
		top = math.Max(top, f.score)
	}
	for i, f := range out {
		if len(f.id) < len(key) {
			continue // the key is no longer than the id, less its dot
		}
		server, name, _ := strings.Cut(f.id, ".")
		if k := nameKey(name); k == key || nameKey(server)+k == key {
			out[i].score += top
		}
	}
}
