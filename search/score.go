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
//
// A tool's score is the BM25F score of the query's words over its fields
// (toolFields), plus serverWeight times the BM25 score of its server's
// document for the same words. A query word that no tool has is backed off
// (see backoff): the index words standing for it, its variants or else its
// misspellings, count as that word. The stems of words that tools do have
// are not searched: that lost more than it won, tools matching only a
// variant of a word outranking tools matching the word. Two or three
// adjacent query words that make an index word when joined count that word
// too (compounds), and a tool whose name is the query ranks first
// (nameFirst). bench/searchquality measures each of these choices against
// its alternatives (--ablation).

// BM25 parameters.
const (
	bm25K1 = 1.2  // saturation of term frequency
	bm25B  = 0.75 // length normalization
)

// clause is a field a query searches and its weight.
type clause struct {
	field  string
	weight float64
}

// toolFields are the fields of a tool document that a query searches.
var toolFields = []clause{{fieldTool, 1}, {fieldSrv, 0.3}}

// serverFields are the fields of a server document.
var serverFields = []clause{{fieldSDoc, 1}}

const (
	// serverWeight is the share of its server document's score that each
	// tool gets.
	serverWeight = 0.5
	// backoffWeight is the weight of an index word standing for a query
	// word, relative to the word's.
	backoffWeight = 1.0
	// compoundWeight is the weight, for each word it joins, of an index
	// word that adjacent query words make when joined (see compounds),
	// relative to a query word's: "screenshot" for "screen shot" counts as
	// the two words it stands for.
	compoundWeight = 1.0
)

// fieldStats are the totals BM25 needs that bleve does not keep: how many
// documents have been indexed and the summed length (in tokens) of each
// field. They are kept per server, next to the server's fingerprint, so that
// replacing one server updates them exactly.
type fieldStats struct {
	Docs    int            `json:"docs"`    // tool documents
	Servers int            `json:"servers"` // server documents
	Len     map[string]int `json:"len"`     // by field
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
		key := f + "\x00" + s
		if n, ok := cache[key]; ok {
			out[f] = n
		} else if a := m.AnalyzerNamed(m.AnalyzerNameForPath(f)); a != nil {
			out[f] = len(a.Analyze([]byte(s)))
			cache[key] = out[f]
		}
	}
	return out
}

// queryWords analyzes text into at most maxQueryTerms distinct words.
func queryWords(m mapping.IndexMapping, text string) []string {
	a := m.AnalyzerNamed(analyzerWords)
	if a == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range a.Analyze([]byte(text)) {
		w := string(t.Term)
		if seen[w] || len(out) == maxQueryTerms {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// bm25f scores the documents that hold any of words in fields and adds
// weight times the score to into, keyed by internal document number. A word
// is a group of terms that count as one (a query word, or the index words
// standing for it). For each word, a document's term frequency is the
// weighted sum over fields and terms of the field's frequency divided by the
// field's length normalization (see termFreqs); the sum is saturated once
// (bm25K1) and multiplied by the word's idf among the n documents, counting
// a document that has any of its terms in any field. It returns each word's
// document frequency.
func bm25f(r index.IndexReader, words [][]string, fields []clause, n int, stats fieldStats, weight float64, into map[uint64]float64) ([]int, error) {
	dfs := make([]int, len(words))
	if n == 0 {
		return dfs, nil
	}
	tf := map[uint64]float64{}
	for i, terms := range words {
		clear(tf)
		if err := termFreqs(r, terms, fields, n, stats, tf); err != nil {
			return nil, err
		}
		df := float64(len(tf))
		dfs[i] = len(tf)
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		for doc, x := range tf {
			into[doc] += weight * idf * (x * (bm25K1 + 1) / (bm25K1 + x))
		}
	}
	return dfs, nil
}

// termFreqs adds to tf, by internal document number, the frequency of each
// of terms in each of fields times the field's weight, divided by the
// field's length normalization for the document (n documents have the
// field's summed length in stats).
func termFreqs(r index.IndexReader, terms []string, fields []clause, n int, stats fieldStats, tf map[uint64]float64) error {
	var tfd index.TermFieldDoc
	for _, c := range fields {
		avg := float64(stats.Len[c.field]) / float64(n)
		if avg <= 0 {
			continue
		}
		for _, term := range terms {
			rd, err := r.TermFieldReader(context.Background(), []byte(term), c.field, true, true, false)
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
				tf[d.ID.Value()] += c.weight * float64(d.Freq) / (1 - bm25B + bm25B*length/avg)
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

// rank scores the tools for text and returns the scores by document id
// ("server.tool").
func (ix *Index) rank(text string) (map[string]float64, error) {
	words := queryWords(ix.bi.Mapping(), text)
	if len(words) == 0 {
		return map[string]float64{}, nil
	}
	q, err := ix.newRanking()
	if err != nil {
		return nil, err
	}
	defer q.close()
	missing, err := q.match(words)
	if err != nil {
		return nil, err
	}
	if err := q.backOff(missing, len(words)); err != nil {
		return nil, err
	}
	joined, sizes, err := compounds(q.r, words)
	if err != nil {
		return nil, err
	}
	for i, c := range joined {
		if err := q.add([][]string{c}, compoundWeight*float64(sizes[i])); err != nil {
			return nil, err
		}
	}
	scores, err := q.scores(words)
	if err != nil {
		return nil, err
	}
	nameFirst(scores, nameKey(text))
	return scores, nil
}

// ranking is one query's scoring in progress.
type ranking struct {
	r     index.IndexReader
	stats fieldStats
	tools map[uint64]float64 // tools' scores by internal document number
}

func (ix *Index) newRanking() (*ranking, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	return &ranking{r: r, stats: ix.totals(), tools: map[uint64]float64{}}, nil
}

func (q *ranking) close() { _ = q.r.Close() }

// match scores the tools for the query's words and returns the words no
// tool has.
func (q *ranking) match(words []string) ([]string, error) {
	dfs, err := bm25f(q.r, groups(words), toolFields, q.stats.Docs, q.stats, 1, q.tools)
	if err != nil {
		return nil, err
	}
	var missing []string
	for i, w := range words {
		if dfs[i] == 0 {
			missing = append(missing, w)
		}
	}
	return missing, nil
}

// backOff adds the scores of the index words that stand for the missing
// query words (see backoff) to the tools' scores; queryWords is how many
// distinct words the query has.
func (q *ranking) backOff(missing []string, queryWords int) error {
	variants, near, err := backoff(q.r, missing, queryWords)
	if err != nil {
		return err
	}
	if err := q.add(variants, backoffWeight); err != nil {
		return err
	}
	return q.add(near, backoffWeight)
}

// add adds weight times the BM25F score of words over toolFields to the
// tools' scores.
func (q *ranking) add(words [][]string, weight float64) error {
	if len(words) == 0 {
		return nil
	}
	extra := map[uint64]float64{}
	if _, err := bm25f(q.r, words, toolFields, q.stats.Docs, q.stats, weight, extra); err != nil {
		return err
	}
	for doc, s := range extra {
		q.tools[doc] += s
	}
	return nil
}

// scores returns the tools' scores, each with its server's added (see
// servers for words), by document id.
func (q *ranking) scores(words []string) (map[string]float64, error) {
	srv, err := q.servers(words)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(q.tools))
	for doc, sc := range q.tools {
		id, err := q.r.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		if s, _, ok := strings.Cut(id, "."); ok {
			out[id] = sc + srv[s]
		}
	}
	return out, nil
}

// servers returns serverWeight times the BM25 score of each server document
// for words, by server id.
func (q *ranking) servers(words []string) (map[string]float64, error) {
	srv := map[string]float64{}
	if len(q.tools) == 0 {
		return srv, nil
	}
	sdocs := map[uint64]float64{}
	if _, err := bm25f(q.r, groups(words), serverFields, q.stats.Servers, q.stats, serverWeight, sdocs); err != nil {
		return nil, err
	}
	for doc, s := range sdocs {
		id, err := q.r.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		srv[id] = s
	}
	return srv, nil
}
