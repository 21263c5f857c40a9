package search

import (
	"math"
	"strings"

	index "github.com/blevesearch/bleve_index_api"
)

// scored is a tool's (or, before hits, a server document's) final score.
type scored struct {
	doc   uint64 // internal document number, where the ranking read it
	id    string // "server.tool", or the server's id
	score float64
}

// ranking is one query's scoring in progress.
type ranking struct {
	ix      *Index
	t       *Ranking
	r       index.IndexReader
	stats   fieldStats
	tools   map[uint64]float64 // tools' scores by internal document number
	matched map[uint64]int     // with CoordBonus: the query words each tool has
	// termWeight, with Bridge.TermWeight, weighs the bridge's words in
	// their groups.
	termWeight map[string]float64
	key        string // with ExactName: the query as a name (nameKey)
}

// rank scores the tools for text (see Ranking for the parts of a score).
func (ix *Index) rank(text string) ([]scored, error) {
	switch {
	case ix.ranking.Baseline:
		return ix.baselineRank(text)
	case ix.ranking.BleveScoring:
		return ix.bleveRank(text)
	}
	words := queryWords(ix.bi.Mapping(), text)
	if len(words) == 0 {
		return nil, nil
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
	q := &ranking{ix: ix, t: &ix.ranking, r: r, stats: ix.totals(), tools: map[uint64]float64{}}
	if q.t.CoordBonus > 0 {
		q.matched = map[uint64]int{}
	}
	return q.run(text, words)
}

// run scores words, the query's, in turn: the words themselves, their
// stemmed twins, the back-off for the words no tool has, the expansions,
// the name pairs, the server documents and the feedback.
func (q *ranking) run(text string, words []queryWord) ([]scored, error) {
	t := q.t
	exact := make([]string, len(words))
	stems := make([]string, len(words))
	for i, w := range words {
		exact[i], stems[i] = w.word, w.stem
	}
	dfs, err := q.match(exact, words)
	if err != nil {
		return nil, err
	}
	if err := q.stemTwins(stems); err != nil {
		return nil, err
	}
	if err := q.backOff(exact, dfs); err != nil {
		return nil, err
	}
	if err := q.expand(exact, dfs); err != nil {
		return nil, err
	}
	if t.ExactName {
		q.key = nameKey(text)
	}
	if err := q.pairs(text); err != nil {
		return nil, err
	}
	srv, err := q.servers(groups(exact))
	if err != nil {
		return nil, err
	}
	final, err := q.final(srv, len(words))
	if err != nil {
		return nil, err
	}
	if fb := t.Feedback; fb.Weight > 0 && fb.Docs > 0 && fb.Terms > 0 && len(words) >= fb.MinWords {
		if err := q.feedback(final, exact); err != nil {
			return nil, err
		}
		return q.final(srv, len(words))
	}
	return final, nil
}

// match scores the tools for the query's own words (exact, with their
// counts in words), each with the bridge's words merged into it when
// Bridge.Merged says so, and returns each word's document frequency.
func (q *ranking) match(exact []string, words []queryWord) ([]int, error) {
	t := q.t
	var ww []float64
	if t.K3 > 0 {
		ww = make([]float64, len(words))
		for i, w := range words {
			ww[i] = (t.K3 + 1) * float64(w.n) / (t.K3 + float64(w.n))
		}
	}
	own := groups(exact)
	if b := t.Bridge; b.Weight > 0 && b.Merged {
		if b.TermWeight > 0 {
			q.termWeight = map[string]float64{}
		}
		for i, w := range exact {
			bb := b
			if b.ActionsMissing {
				if ok, err := has(q.r, t.Clauses[0].Field, w); err != nil {
					return nil, err
				} else if ok {
					bb.ThingsOnly = true
				}
			}
			more, err := q.bridged(w, bb)
			if err != nil {
				return nil, err
			}
			for _, x := range more {
				if b.TermWeight > 0 && x != w {
					q.termWeight[x] = b.TermWeight
				}
			}
			own[i] = append(own[i], more...)
		}
	}
	return q.bm25f(own, ww, t.Clauses, q.stats.Docs, 1, q.tools, q.matched)
}

// stemTwins adds StemWeight times the score of the query's stems over the
// stemmed twins of the clauses' fields.
func (q *ranking) stemTwins(stems []string) error {
	if q.t.StemWeight <= 0 {
		return nil
	}
	var twins []Clause
	for _, c := range q.t.Clauses {
		if !strings.HasSuffix(c.Field, StemSuffix) {
			c.Field += StemSuffix
			twins = append(twins, c)
		}
	}
	return q.add(groups(stems), twins, q.t.StemWeight, false)
}

// backOff adds the scores of the index words that stand for the query words
// no tool has (dfs holds each word's document frequency; see backoff).
func (q *ranking) backOff(exact []string, dfs []int) error {
	t := q.t
	if t.StemBackoff <= 0 && t.FuzzyBackoff <= 0 {
		return nil
	}
	var missing []string
	for i, w := range exact {
		if dfs[i] == 0 {
			missing = append(missing, w)
		}
	}
	variants, near, err := q.backoff(missing, len(exact))
	if err != nil {
		return err
	}
	if err := q.add(variants, t.Clauses, t.StemBackoff, false); err != nil {
		return err
	}
	return q.add(near, t.Clauses, t.FuzzyBackoff, false)
}

// pairs adds PairWeight times the score of the query's pairs of adjacent
// words among those of the tools' names and titles.
func (q *ranking) pairs(text string) error {
	a := q.ix.bi.Mapping().AnalyzerNamed(analyzerPairs)
	if q.t.PairWeight <= 0 || a == nil {
		return nil
	}
	var pairs []string
	for _, tok := range a.Analyze([]byte(text)) {
		pairs = append(pairs, string(tok.Term))
	}
	if len(pairs) > maxQueryTerms {
		pairs = pairs[:maxQueryTerms]
	}
	return q.add(groups(pairs), []Clause{{Field: fieldPairs, Weight: 1}}, q.t.PairWeight, true)
}

// add adds weight times the BM25F score of words over fields to the tools'
// scores, only to tools scored already when onlyScored is set.
func (q *ranking) add(words [][]string, fields []Clause, weight float64, onlyScored bool) error {
	if len(words) == 0 || weight <= 0 {
		return nil
	}
	extra := map[uint64]float64{}
	if _, err := q.bm25f(words, nil, fields, q.stats.Docs, weight, extra, nil); err != nil {
		return err
	}
	for doc, s := range extra {
		if _, ok := q.tools[doc]; ok || !onlyScored {
			q.tools[doc] += s
		}
	}
	return nil
}

// servers returns ServerWeight times the BM25 score of each server document
// for words, by server id.
func (q *ranking) servers(words [][]string) (map[string]float64, error) {
	srv := map[string]float64{}
	w := q.t.ServerWeight
	if w <= 0 || len(q.tools) == 0 {
		return srv, nil
	}
	sdocs := map[uint64]float64{}
	if _, err := q.bm25f(words, nil, []Clause{{Field: fieldSDoc, Weight: 1}}, q.stats.Servers, w, sdocs, nil); err != nil {
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

// final combines the tools' scores with their servers' (srv, by server id),
// the coordination bonus, the exact name and the server fusion.
func (q *ranking) final(srv map[string]float64, words int) ([]scored, error) {
	t := q.t
	if t.ServerNorm && len(srv) > 0 {
		srv = q.normalized(srv)
	}
	out := make([]scored, 0, len(q.tools))
	best := map[string][2]float64{} // with ServerFusion: the two best scores of each server's tools
	for doc, sc := range q.tools {
		id, err := q.r.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		s, _, ok := strings.Cut(id, ".")
		if !ok {
			continue
		}
		if t.CoordBonus > 0 {
			sc *= 1 + t.CoordBonus*float64(q.matched[doc])/float64(words)
		}
		sc += srv[s]
		out = append(out, scored{doc, id, sc})
		if t.ServerFusion > 0 {
			b := best[s]
			if sc > b[0] {
				b[0], b[1] = sc, b[0]
			} else if sc > b[1] {
				b[1] = sc
			}
			best[s] = b
		}
	}
	nameFirst(out, q.key)
	if t.ServerFusion > 0 {
		for i, f := range out {
			s, _, _ := strings.Cut(f.id, ".")
			b := best[s]
			other := b[0]
			if f.score == b[0] {
				other = b[1]
			}
			out[i].score += t.ServerFusion * other
		}
	}
	return out, nil
}

// normalized scales the servers' scores (srv) so that the best adds
// ServerWeight times the best tool's score.
func (q *ranking) normalized(srv map[string]float64) map[string]float64 {
	var maxTool, maxSrv float64
	for _, sc := range q.tools {
		maxTool = math.Max(maxTool, sc)
	}
	for _, v := range srv {
		maxSrv = math.Max(maxSrv, v)
	}
	if maxSrv <= 0 {
		return srv
	}
	norm := make(map[string]float64, len(srv))
	for k, v := range srv {
		norm[k] = v / maxSrv * maxTool * q.t.ServerWeight
	}
	return norm
}
