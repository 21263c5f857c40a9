package search

import (
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// This file ranks with bleve's own BM25, for Ranking.Baseline and
// Ranking.BleveScoring: the reference points that the BM25F of score.go is
// measured against.

// baselineRank scores with a bleve match query on FieldAll.
func (ix *Index) baselineRank(text string) ([]scored, error) {
	mq := query.NewMatchQuery(text)
	mq.SetField(FieldAll)
	scores := map[string]float64{}
	if err := ix.collect(mq, 1, scores); err != nil {
		return nil, err
	}
	return byID(scores), nil
}

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
func (ix *Index) bleveRank(text string) ([]scored, error) {
	m := ix.bi.Mapping()
	scores := map[string]float64{}
	for _, c := range ix.ranking.Clauses {
		if q := fieldQuery(m, c.Field, text); q != nil {
			if err := ix.collect(q, c.Weight, scores); err != nil {
				return nil, err
			}
		}
	}
	if w := ix.ranking.ServerWeight; w > 0 && len(scores) > 0 {
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
	return byID(scores), nil
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

// byID makes scores by document id a list.
func byID(scores map[string]float64) []scored {
	out := make([]scored, 0, len(scores))
	for id, sc := range scores {
		out = append(out, scored{id: id, score: sc})
	}
	return out
}
