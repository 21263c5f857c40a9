package search

import (
	"errors"
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
	if len(words) < 2 {
		return nil, nil, nil
	}
	dict, err := contains(r, fieldTool)
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
		if len(id) < len(key) {
			continue // the key is no longer than the id, less its dot
		}
		server, name, _ := strings.Cut(id, ".")
		if k := nameKey(name); k == key || nameKey(server)+k == key {
			scores[id] = sc + top
		}
	}
}
