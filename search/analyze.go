package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// tokenizerType is the bleve registry name of the tokenizer below. Index
// mappings refer to it by name, so it must stay registered under this name
// for as long as indexes built with it may be opened.
const tokenizerType = "mcp_words"

// maxWordRunes bounds a word (a run of letters and digits). Longer runs are
// not words a person types but blobs (base64, hashes, minified data): they
// are dropped whole instead of being cut into many meaningless pieces.
const maxWordRunes = 48

// wordTokenizer splits text into lowercase words the way tool names and
// descriptions are written:
//
//   - any character that is not a letter, digit or mark separates words, so
//     snake_case, kebab-case, dotted.names and path/segments all split;
//   - camelCase and PascalCase split at each case change ("getHTTPResponse"
//     gives get, http, response), and the joined word is kept as well, so a
//     brand written as "GitHub" is still found as "github";
//   - an apostrophe inside a word is dropped, and a possessive "'s" with it
//     ("apple's" gives apple, "don't" gives dont);
//   - runs of Han, kana or Hangul, which have no spaces, become overlapping
//     pairs of characters;
//   - other words shorter than minRunes are dropped.
//
// Its options (Ranking's SplitCamel, Catenate, MinRunes) are for measuring
// each of these choices; the defaults are the ones above.
type wordTokenizer struct {
	splitCamel bool // split at case changes
	catenate   bool // also keep a split word joined
	minRunes   int  // shortest word kept
}

// minWordRunes is the shortest word kept by default, pairs of CJK
// characters aside.
const minWordRunes = 2

// newWordTokenizer is the tokenizer's registry constructor: config may set
// split_camel and catenate (booleans) and min_runes (a number); each
// defaults to the choice described at wordTokenizer.
func newWordTokenizer(config map[string]interface{}, _ *registry.Cache) (analysis.Tokenizer, error) {
	t := &wordTokenizer{splitCamel: true, catenate: true, minRunes: minWordRunes}
	if v, ok := config["split_camel"].(bool); ok {
		t.splitCamel = v
	}
	if v, ok := config["catenate"].(bool); ok {
		t.catenate = v
	}
	if v, ok := config["min_runes"].(float64); ok {
		t.minRunes = int(v)
	}
	if t.minRunes < 1 || t.minRunes > maxWordRunes {
		return nil, fmt.Errorf("search: min_runes %d out of range", t.minRunes)
	}
	return t, nil
}

func init() {
	if err := registry.RegisterTokenizer(tokenizerType, newWordTokenizer); err != nil {
		panic(err)
	}
	if err := registry.RegisterTokenFilter(pairFilterType, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return pairFilter{}, nil
	}); err != nil {
		panic(err)
	}
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !isCJK(r)
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// Tokenize implements analysis.Tokenizer.
func (t *wordTokenizer) Tokenize(in []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 1
	emit := func(term string, start, end int, typ analysis.TokenType, joined bool) {
		if joined && len(out) > 0 {
			pos--
		}
		// The joined form of a split word is marked KeyWord, which tells
		// bleve's stemmers to leave it alone.
		out = append(out, &analysis.Token{
			Term: []byte(term), Start: start, End: end, Position: pos, Type: typ, KeyWord: joined,
		})
		pos++
	}
	for i := 0; i < len(in); {
		r, size := utf8.DecodeRune(in[i:])
		switch {
		case isCJK(r):
			j := i
			var starts []int
			for j < len(in) {
				r2, s2 := utf8.DecodeRune(in[j:])
				if !isCJK(r2) {
					break
				}
				starts = append(starts, j)
				j += s2
			}
			starts = append(starts, j)
			if len(starts) == 2 {
				emit(string(in[i:j]), i, j, analysis.Ideographic, false)
			}
			for k := 0; k+2 < len(starts); k++ {
				emit(string(in[starts[k]:starts[k+2]]), starts[k], starts[k+2], analysis.Ideographic, false)
			}
			i = j
		case isWordRune(r):
			j := i + size
			for j < len(in) {
				r2, s2 := utf8.DecodeRune(in[j:])
				if isWordRune(r2) {
					j += s2
					continue
				}
				if isApostrophe(r2) && j+s2 < len(in) {
					if r3, _ := utf8.DecodeRune(in[j+s2:]); isWordRune(r3) {
						j += s2
						continue
					}
				}
				break
			}
			t.word(in[i:j], i, emit)
			i = j
		default:
			i += size
		}
	}
	return out
}

// word emits the tokens of one run of word characters (which may hold
// apostrophes between letters).
func (t *wordTokenizer) word(w []byte, start int, emit func(string, int, int, analysis.TokenType, bool)) {
	if utf8.RuneCount(w) > maxWordRunes {
		return
	}
	s := string(w)
	if strings.ContainsFunc(s, isApostrophe) {
		parts := strings.FieldsFunc(s, isApostrophe)
		if n := len(parts); n > 1 && (parts[n-1] == "s" || parts[n-1] == "S") {
			parts = parts[:n-1]
		}
		s = strings.Join(parts, "")
	}
	end := start + len(w)
	if !t.splitCamel {
		t.emitWord(strings.ToLower(s), start, end, false, emit)
		return
	}
	parts := camelParts(s)
	for _, p := range parts {
		t.emitWord(strings.ToLower(p), start, end, false, emit)
	}
	if t.catenate && len(parts) > 1 {
		t.emitWord(strings.ToLower(s), start, end, true, emit)
	}
}

func (t *wordTokenizer) emitWord(term string, start, end int, samePos bool, emit func(string, int, int, analysis.TokenType, bool)) {
	if utf8.RuneCountInString(term) < t.minRunes {
		return
	}
	typ := analysis.AlphaNumeric
	if strings.IndexFunc(term, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		typ = analysis.Numeric
	}
	emit(term, start, end, typ, samePos)
}

// camelParts splits s at case changes: before an upper-case letter that
// follows a lower-case letter or a digit ("fooBar", "utf8Decode"), and before
// the last of a run of upper-case letters when a lower-case letter follows
// ("HTTPServer"). Digits stay with the letters before them ("mp3", "base64").
func camelParts(s string) []string {
	rs := []rune(s)
	var parts []string
	from := 0
	for k := 1; k < len(rs); k++ {
		prev, cur := rs[k-1], rs[k]
		boundary := false
		if unicode.IsUpper(cur) {
			if unicode.IsLower(prev) || unicode.IsDigit(prev) {
				boundary = true
			} else if unicode.IsUpper(prev) && k+1 < len(rs) && unicode.IsLower(rs[k+1]) {
				boundary = true
			}
		}
		if boundary {
			parts = append(parts, string(rs[from:k]))
			from = k
		}
	}
	return append(parts, string(rs[from:]))
}

// pairFilterType is the bleve registry name of the filter below.
const pairFilterType = "mcp_word_pairs"

// pairFilter replaces a token stream by the pairs of adjacent words in it,
// each pair one token ("read file"), for Ranking.PairWeight. The joined
// form of a split word is not a word of its own here.
type pairFilter struct{}

func (pairFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	var prev *analysis.Token
	for _, t := range in {
		if t.KeyWord && prev != nil && t.Position == prev.Position {
			continue
		}
		if prev != nil {
			term := make([]byte, 0, len(prev.Term)+1+len(t.Term))
			term = append(append(append(term, prev.Term...), ' '), t.Term...)
			out = append(out, &analysis.Token{
				Term: term, Start: prev.Start, End: t.End, Position: len(out) + 1, Type: analysis.Shingle,
			})
		}
		prev = t
	}
	return out
}
