package search

import (
	"context"
	"math"
	"strings"

	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// This file ranks with BM25F computed here from bleve's postings rather
// than with bleve's scorer. Bleve 2.6's BM25 takes the number of distinct
// terms in a field for its average length, squares the idf (the query
// weight multiplies it in again) and scales a disjunction by the share of
// clauses that matched; each of those cost ranking quality on tool
// catalogs (measured by bench/searchquality, Ranking.BleveScoring).
// Analysis, storage and postings stay bleve's.
//
// With DefaultRanking, a tool's score is the BM25F score of the query's
// words over its fields (Ranking.Clauses), plus Ranking.ServerWeight times
// the BM25 score of its server's document for the same words. A query word
// that no tool has is backed off (see backoff): the index words standing
// for it, its variants or else its misspellings, count as that word. The
// stems of words that tools do have are not searched: that lost more than
// it won, tools matching only a variant of a word outranking tools matching
// the word. Two or three adjacent query words that make an index word when
// joined count that word too (compounds), and a tool whose name is the
// query ranks first (nameFirst). rank.go puts the parts together.

// fieldStats are the totals BM25 needs that bleve does not keep: how many
// documents have been indexed and the summed length (in tokens) of each
// field. They are kept per server, next to the server's fingerprint, so that
// replacing one server updates them exactly.
type fieldStats struct {
	Docs    int            `json:"docs"`    // tool documents
	Servers int            `json:"servers"` // server documents
	Len     map[string]int `json:"len"`     // by field, stemmed fields under their twin's name
}

func (s *fieldStats) add(lens map[string]int) {
	for k, v := range lens {
		s.Len[k] += v
	}
}

// measure returns the token length of each text field of doc as the index
// analyzes it. cache remembers lengths by field and text: the server's text
// is the same on each of its tools.
func measure(m mapping.IndexMapping, doc map[string]interface{}, cache map[string]int) map[string]int {
	out := map[string]int{}
	for f, v := range doc {
		s, ok := v.(string)
		if !ok || f == fieldServer {
			continue
		}
		base, stemmed := strings.CutSuffix(f, StemSuffix)
		if _, done := out[base]; done && stemmed {
			continue
		}
		key := f + "\x00" + s
		if n, ok := cache[key]; ok {
			out[base] = n
		} else if a := m.AnalyzerNamed(m.AnalyzerNameForPath(f)); a != nil {
			out[base] = len(a.Analyze([]byte(s)))
			cache[key] = out[base]
		}
	}
	return out
}

// queryWord is one distinct word of a query, its stem and how many times the
// query has it.
type queryWord struct {
	word, stem string
	n          int
}

// queryWords analyzes text into at most maxQueryTerms distinct words, each
// with its stem when the index has a stemming analyzer. Both analyzers share
// the tokenizer and stop words, so their outputs line up one to one.
func queryWords(m mapping.IndexMapping, text string) []queryWord {
	a := m.AnalyzerNamed(analyzerWords)
	if a == nil {
		return nil
	}
	toks := a.Analyze([]byte(text))
	var stems []string
	if sa := m.AnalyzerNamed(analyzerStem); sa != nil {
		for _, t := range sa.Analyze([]byte(text)) {
			stems = append(stems, string(t.Term))
		}
		if len(stems) != len(toks) {
			stems = nil
		}
	}
	seen := map[string]int{}
	var out []queryWord
	for i, t := range toks {
		w := string(t.Term)
		if j, ok := seen[w]; ok {
			out[j].n++
			continue
		}
		if len(out) == maxQueryTerms {
			continue
		}
		seen[w] = len(out)
		qw := queryWord{word: w, stem: w, n: 1}
		if stems != nil {
			qw.stem = stems[i]
		}
		out = append(out, qw)
	}
	return out
}

// bm25f scores the documents that hold any of words in fields and adds
// weight times the score to into, keyed by internal document number. A word
// is a group of terms that count as one (a query word, or the index words
// standing for it), weighted by ww (nil: 1 for all). For each word, a
// document's term frequency is the weighted sum over fields and terms of
// the field's frequency divided by the field's length normalization (see
// termFreqs); the sum is saturated once (K1) and multiplied by the word's
// idf among the n documents, counting a document that has any of its terms
// in any field. matched, when not nil, counts the words each document
// matched. It returns each word's document frequency.
func (q *ranking) bm25f(words [][]string, ww []float64, fields []Clause, n int, weight float64, into map[uint64]float64, matched map[uint64]int) ([]int, error) {
	t := q.t
	dfs := make([]int, len(words))
	if n == 0 {
		return dfs, nil
	}
	tf := map[uint64]float64{}
	for i, terms := range words {
		clear(tf)
		if err := q.termFreqs(terms, fields, n, tf); err != nil {
			return nil, err
		}
		df := float64(len(tf))
		dfs[i] = len(tf)
		if df == 0 || (t.MaxDF > 0 && df > t.MaxDF*float64(n)) {
			continue
		}
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		if ww != nil {
			idf *= ww[i]
		}
		for doc, x := range tf {
			into[doc] += weight * idf * (x*(t.K1+1)/(t.K1+x) + t.Delta)
			if matched != nil {
				matched[doc]++
			}
		}
	}
	return dfs, nil
}

// termFreqs adds to tf, by internal document number, the frequency of each
// of terms in each of fields times the field's weight (and the term's, see
// ranking.termWeight), divided by the field's length normalization for the
// document (n documents have the field's summed length in stats).
func (q *ranking) termFreqs(terms []string, fields []Clause, n int, tf map[uint64]float64) error {
	var tfd index.TermFieldDoc
	for _, c := range fields {
		b := c.B
		if b == 0 {
			b = q.t.B
		}
		avg := float64(q.stats.Len[strings.TrimSuffix(c.Field, StemSuffix)]) / float64(n)
		if avg <= 0 {
			continue
		}
		for _, term := range terms {
			tw := 1.0
			if w, ok := q.termWeight[term]; ok {
				tw = w
			}
			rd, err := q.r.TermFieldReader(context.Background(), []byte(term), c.Field, true, true, false)
			if err != nil {
				return err
			}
			for {
				d, err := rd.Next(tfd.Reset())
				if err != nil {
					_ = rd.Close()
					return err
				}
				if d == nil {
					break
				}
				length := 1.0
				if d.Norm > 0 {
					length = 1 / (d.Norm * d.Norm) // bleve stores 1/√length
				}
				tf[d.ID.Value()] += tw * c.Weight * float64(d.Freq) / (1 - b + b*length/avg)
			}
			if err := rd.Close(); err != nil {
				return err
			}
		}
	}
	return nil
}

// groups makes each term a word of its own, dropping repeats.
func groups(terms []string) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, []string{t})
		}
	}
	return out
}
