package lab

import (
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// This file ranks with bleve's own BM25, for the baseline and for the row
// that measures it against the BM25F of score.go.

// fieldQuery is what a match query on field does, with repeated words
// counted once and at most maxQueryTerms words: a disjunction of one term
// query per distinct word, as the field's analyzer cuts them. It returns nil
// when the text has no words.
func fieldQuery(m mapping.IndexMapping, field, text string) query.Query {
	a := m.AnalyzerNamed(m.AnalyzerNameForPath(field))
	if a == nil {
		return nil
	}
	seen := map[string]bool{}
	var qs []query.Query
	for _, tok := range a.Analyze([]byte(text)) {
		term := string(tok.Term)
		if seen[term] {
			continue
		}
		seen[term] = true
		tq := query.NewTermQuery(term)
		tq.SetField(field)
		qs = append(qs, tq)
		if len(qs) == maxQueryTerms {
			break
		}
	}
	if len(qs) == 0 {
		return nil
	}
	d := query.NewDisjunctionQuery(qs)
	d.SetMin(1)
	return d
}

// bleveRank scores with bleve's BM25: one match query per clause, searched
// on its own, weighted and added, plus the server document's score.
func (ix *Index) bleveRank(text string) (map[string]float64, error) {
	m := ix.bi.Mapping()
	scores := map[string]float64{}
	for _, c := range ix.tune.Clauses {
		if q := fieldQuery(m, c.Field, text); q != nil {
			if err := ix.collect(q, c.Weight, scores); err != nil {
				return nil, err
			}
		}
	}
	if w := ix.tune.ServerWeight; w > 0 && len(scores) > 0 {
		if q := fieldQuery(m, fieldSDoc, text); q != nil {
			srv := map[string]float64{}
			if err := ix.collect(q, w, srv); err != nil {
				return nil, err
			}
			for id := range scores {
				if s, _, ok := strings.Cut(id, "."); ok {
					scores[id] += srv[s]
				}
			}
		}
	}
	return scores, nil
}

// collect adds weight times the score of every document matching q to
// scores.
func (ix *Index) collect(q query.Query, weight float64, scores map[string]float64) error {
	n, err := ix.bi.DocCount()
	if err != nil || n == 0 {
		return err
	}
	req := bleve.NewSearchRequestOptions(q, int(n), 0, false)
	res, err := ix.bi.Search(req)
	if err != nil {
		return err
	}
	for _, h := range res.Hits {
		scores[h.ID] += weight * h.Score
	}
	return nil
}
