package search

import (
	"context"
	"math"
	"sort"

	index "github.com/blevesearch/bleve_index_api"
)

// feedback adds to the tools' scores those of the words that best set apart
// the first Feedback.Docs tools of ranked (see Feedback); query holds the
// query's own words, never added again.
func (q *ranking) feedback(ranked []scored, query []string) error {
	fb := q.t.Feedback
	field := q.t.Clauses[0].Field
	mass, docs, err := q.feedbackMass(ranked, query)
	if err != nil || len(mass) == 0 {
		return err
	}
	type cand struct {
		term string
		w    float64
	}
	n := float64(q.stats.Docs)
	var cands []cand
	for t, m := range mass {
		if docs[t] < fb.MinDocs {
			continue
		}
		tfr, err := q.r.TermFieldReader(context.Background(), []byte(t), field, false, false, false)
		if err != nil {
			return err
		}
		df := float64(tfr.Count())
		if err := tfr.Close(); err != nil {
			return err
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		cands = append(cands, cand{t, m * idf})
	}
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].w != cands[j].w {
			return cands[i].w > cands[j].w
		}
		return cands[i].term < cands[j].term
	})
	if len(cands) > fb.Terms {
		cands = cands[:fb.Terms]
	}
	scale := fb.Weight / cands[0].w
	if fb.Mass {
		var sum float64
		for _, c := range cands {
			sum += c.w
		}
		scale = fb.Weight * float64(len(query)) / sum
	}
	for _, c := range cands {
		if err := q.add([][]string{{c.term}}, q.t.Clauses, scale*c.w, fb.OnlyScored); err != nil {
			return err
		}
	}
	return nil
}

// feedbackMass returns, for each word of the first clause's field but the
// query's own, its share of the scores of the first Feedback.Docs tools of
// ranked that have it, and how many of them have it.
func (q *ranking) feedbackMass(ranked []scored, query []string) (map[string]float64, map[string]int, error) {
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].score != ranked[j].score {
			return ranked[i].score > ranked[j].score
		}
		return ranked[i].id < ranked[j].id
	})
	if len(ranked) > q.t.Feedback.Docs {
		ranked = ranked[:q.t.Feedback.Docs]
	}
	var total float64
	for _, d := range ranked {
		total += d.score
	}
	if total <= 0 {
		return nil, nil, nil
	}
	own := map[string]bool{}
	for _, w := range query {
		own[w] = true
	}
	dvr, err := q.r.DocValueReader([]string{q.t.Clauses[0].Field})
	if err != nil {
		return nil, nil, err
	}
	mass := map[string]float64{}
	docs := map[string]int{}
	for _, d := range ranked {
		share := d.score / total
		err := dvr.VisitDocValues(index.NewIndexInternalID(nil, d.doc), func(_ string, term []byte) {
			t := string(term)
			if !own[t] {
				mass[t] += share
				docs[t]++
			}
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return mass, docs, nil
}
