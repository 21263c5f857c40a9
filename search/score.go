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
// catalogs (measured by bench/searchquality). Analysis, storage and
// postings stay bleve's.

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
		base, stemmed := strings.CutSuffix(f, stemSuffix)
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

// queryWord is one distinct word of a query and its stem.
type queryWord struct{ word, stem string }

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
	seen := map[string]bool{}
	var out []queryWord
	for i, t := range toks {
		w := string(t.Term)
		if seen[w] {
			continue
		}
		seen[w] = true
		qw := queryWord{word: w, stem: w}
		if stems != nil {
			qw.stem = stems[i]
		}
		out = append(out, qw)
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}

// bm25f scores the documents that hold any of words in the weighted fields:
// for each word, a document's term frequency is the weighted sum over fields
// of the field's frequency divided by the field's length normalization; the
// sum is saturated once (K1) and multiplied by the word's idf among the n
// documents, counting a document that has the word in any field. Scores are
// keyed by internal document number.
func (ix *Index) bm25f(r index.IndexReader, words []queryWord, fields []Clause, n int, stats fieldStats) (map[uint64]float64, error) {
	k1, b := ix.tune.K1, ix.tune.B
	scores := map[uint64]float64{}
	if n == 0 {
		return scores, nil
	}
	tf := map[uint64]float64{}
	var tfd index.TermFieldDoc
	for _, w := range words {
		clear(tf)
		for _, c := range fields {
			term := w.word
			base, stemmed := strings.CutSuffix(c.Field, stemSuffix)
			if stemmed {
				term = w.stem
			}
			avg := float64(stats.Len[base]) / float64(n)
			if avg <= 0 {
				continue
			}
			rd, err := r.TermFieldReader(context.Background(), []byte(term), c.Field, true, true, false)
			if err != nil {
				return nil, err
			}
			for {
				d, err := rd.Next(tfd.Reset())
				if err != nil {
					_ = rd.Close()
					return nil, err
				}
				if d == nil {
					break
				}
				length := 1.0
				if d.Norm > 0 {
					length = 1 / (d.Norm * d.Norm) // bleve stores 1/√length
				}
				tf[d.ID.Value()] += c.Weight * float64(d.Freq) / (1 - b + b*length/avg)
			}
			if err := rd.Close(); err != nil {
				return nil, err
			}
		}
		df := float64(len(tf))
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		for doc, x := range tf {
			scores[doc] += idf * x * (k1 + 1) / (k1 + x)
		}
	}
	return scores, nil
}

// rank scores the tools for text: BM25F over the tuning's clauses plus
// ServerWeight times the BM25 score of the tool's server document. It
// returns scores by document id ("server.tool").
func (ix *Index) rank(text string) (map[string]float64, error) {
	words := queryWords(ix.bi.Mapping(), text)
	out := map[string]float64{}
	if len(words) == 0 {
		return out, nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	stats := ix.totals()
	tools, err := ix.bm25f(r, words, ix.tune.Clauses, stats.Docs, stats)
	if err != nil {
		return nil, err
	}
	srv := map[string]float64{}
	if w := ix.tune.ServerWeight; w > 0 && len(tools) > 0 {
		sdocs, err := ix.bm25f(r, words, []Clause{{fieldSDoc, 1}}, stats.Servers, stats)
		if err != nil {
			return nil, err
		}
		for doc, sc := range sdocs {
			id, err := r.ExternalID(index.NewIndexInternalID(nil, doc))
			if err != nil {
				return nil, err
			}
			srv[id] = w * sc
		}
	}
	for doc, sc := range tools {
		id, err := r.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		if s, _, ok := strings.Cut(id, "."); ok {
			out[id] = sc + srv[s]
		}
	}
	return out, nil
}
