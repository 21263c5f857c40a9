package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	index "github.com/blevesearch/bleve_index_api"
)

// Back-off bounds. One edit away from a word of four letters lie too many
// other words ("park": part, dark, pack) for the edit to say much, and a
// typist seldom gets the first letter wrong. In a long query one misspelt
// word matters little, and the words no tool has are mostly names
// ("Haidian") that an edit would only turn into noise. The rest bound the
// work one query can cause.
const (
	stemMinRunes  = 4    // shortest word, and stem, looked up
	fuzzyMinRunes = 5    // shortest word looked up within one edit
	fuzzyMaxWords = 6    // longest query (distinct words) looked up within one edit
	backoffWords  = 16   // most query words looked up
	backoffTerms  = 16   // most index words standing for one query word
	backoffScan   = 256  // most index words read for a word's variants
	fuzzyScan     = 4096 // most index words read for a word's misspellings
)

var porterStemmer = porter.NewPorterStemmer()

// stem returns the Porter stem of a lowercase word.
func stem(w string) string {
	return string(porterStemmer.Filter(analysis.TokenStream{{Term: []byte(w)}})[0].Term)
}

func letters(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// backoff finds the index words that stand for query words no tool has.
// For each such word: the index words with the same Porter stem (its
// morphological variants: "parkings" for "parking") make one group in
// stemmed; when there are none, the index words one edit away with the same
// first letter (a misspelling: "weahter" for "weather") make one group in
// fuzzy, if the query is short. Index words are those of the first
// clause's field (FieldTool by default). StemBackoff and FuzzyBackoff turn
// each off.
func (q *ranking) backoff(missing []string, queryWords int) (stemmed, fuzzy [][]string, err error) {
	field := q.t.Clauses[0].Field
	looked := 0
	for _, w := range missing {
		n := utf8.RuneCountInString(w)
		if n < stemMinRunes || !letters(w) {
			continue // too short to go by, or a number, code or hash
		}
		if looked++; looked > backoffWords {
			break
		}
		if q.t.StemBackoff > 0 {
			variants, err := variants(q.r, field, w)
			if err != nil {
				return nil, nil, err
			}
			if len(variants) > 0 {
				stemmed = append(stemmed, variants)
				continue
			}
		}
		if q.t.FuzzyBackoff <= 0 || n < fuzzyMinRunes || queryWords > fuzzyMaxWords {
			continue
		}
		near, err := misspellings(q.r, field, w)
		if err != nil {
			return nil, nil, err
		}
		if len(near) > 0 {
			fuzzy = append(fuzzy, near)
		}
	}
	return stemmed, fuzzy, nil
}

// variants returns the words of field, other than w, with w's stem. Porter
// rewrites only the ending of a word, so the words with a stem start with
// it, except where the stem ends in a letter that the rewriting put there:
// an "e" ("code": coding), an "i" for a "y" ("happi": happy) or the "l" of
// "abl" ("readabl": readability). Only the words that start with the stem,
// less such a letter, are read.
func variants(r index.IndexReader, field, w string) ([]string, error) {
	s := stem(w)
	if utf8.RuneCountInString(s) < stemMinRunes {
		return nil, nil // "new" (of "news") is too short a stem to go by
	}
	prefix := s
	if strings.HasSuffix(s, "e") || strings.HasSuffix(s, "i") || strings.HasSuffix(s, "l") {
		prefix = s[:len(s)-1]
	}
	d, err := r.FieldDictPrefix(field, []byte(prefix))
	if err != nil {
		return nil, err
	}
	return drain(d, backoffScan, func(t string) bool { return t != w && stem(t) == s })
}

// misspellings returns the words of field one edit away from w that share
// its first two letters or, when there are none, its first letter. Bleve's
// Levenshtein automata cost about a millisecond a word on ten thousand
// tools; reading the words that share a prefix and comparing costs a tenth
// of that, and most of a typo's neighbours share two letters.
func misspellings(r index.IndexReader, field, w string) ([]string, error) {
	_, one := utf8.DecodeRuneInString(w)
	_, two := utf8.DecodeRuneInString(w[one:])
	for _, prefix := range []string{w[:one+two], w[:one]} {
		d, err := r.FieldDictPrefix(field, []byte(prefix))
		if err != nil {
			return nil, err
		}
		near, err := drain(d, fuzzyScan, func(t string) bool { return oneEdit(w, t) })
		if err != nil || len(near) > 0 {
			return near, err
		}
	}
	return nil, nil
}

// drain reads at most scan words of a dictionary, closing it, and returns
// the first backoffTerms words keep keeps.
func drain(d index.FieldDict, scan int, keep func(string) bool) ([]string, error) {
	var out []string
	var err error
	for n := 0; n < scan && len(out) < backoffTerms; n++ {
		var e *index.DictEntry
		if e, err = d.Next(); err != nil || e == nil {
			break
		}
		if keep(e.Term) {
			out = append(out, e.Term)
		}
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return out, err
}

// oneEdit reports whether a and b differ by exactly one edit: one letter
// added, dropped or changed, or two adjacent letters swapped.
func oneEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	if len(x) < len(y) {
		x, y = y, x
	}
	if len(x)-len(y) > 1 {
		return false
	}
	i := 0
	for i < len(y) && x[i] == y[i] {
		i++
	}
	if len(x) != len(y) { // one letter more in x, at i
		return string(x[i+1:]) == string(y[i:])
	}
	if i == len(x) {
		return false // equal
	}
	if string(x[i+1:]) == string(y[i+1:]) {
		return true // changed
	}
	return i+1 < len(x) && x[i] == y[i+1] && x[i+1] == y[i] && string(x[i+2:]) == string(y[i+2:])
}
