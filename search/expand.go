package search

import (
	"math"
	"strings"
	"unicode"

	index "github.com/blevesearch/bleve_index_api"
)

// compoundMaxWords is the most adjacent query words joined into one
// compound.
const compoundMaxWords = 3

// compounds returns, each as a word of its own, the index words of the
// tool field that two or three adjacent query words make when joined
// ("screen shot": screenshot; "search mastra docs": searchmastradocs, the
// joined form of searchMastraDocs), other than the query's own words, and
// how many words each joins. Adjacent means next to each other among the
// query's distinct words.
func compounds(r index.IndexReader, words []string) ([][]string, []int, error) {
	own := make(map[string]bool, len(words))
	for _, w := range words {
		own[w] = true
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
			ok, err := hasTerm(r, fieldTool, joined)
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

// hasTerm reports whether field holds term.
func hasTerm(r index.IndexReader, field, term string) (bool, error) {
	d, err := r.FieldDictPrefix(field, []byte(term))
	if err != nil {
		return false, err
	}
	e, err := d.Next()
	found := err == nil && e != nil && e.Term == term
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return found, err
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

// nameFirst lifts the tools of scores (by document id) whose name, or
// server and name, is the query (key, its nameKey) above all others.
func nameFirst(scores map[string]float64, key string) {
	if key == "" {
		return
	}
	var top float64
	for _, sc := range scores {
		top = math.Max(top, sc)
	}
	for id, sc := range scores {
		server, name, _ := strings.Cut(id, ".")
		if k := nameKey(name); k == key || nameKey(server)+k == key {
			scores[id] = sc + top
		}
	}
}
