package lab

import (
	"context"
	"math"
	"strings"

	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// This file ranks, as search does, with BM25F computed here from bleve's
// postings rather than with bleve's scorer (see search's score.go for why);
// BleveScoring and Baseline use bleve's instead (bleve.go).

// fieldStats are the totals BM25 needs that bleve does not keep: how many
// documents have been indexed and the summed length (in tokens) of each
// field, kept per server as search keeps them.
type fieldStats struct {
	Docs    int            // tool documents
	Servers int            // server documents
	Len     map[string]int // by field, stemmed fields under their twin's name
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

// docScore is a document's score and how many query words it matched.
type docScore struct {
	score   float64
	matched int
}

// bm25f scores the documents that hold any of the query's words in the
// weighted fields and adds weight times the score to into, keyed by internal
// document number. A word is a group of terms that count as one (a query
// word and the index words standing for it). For each word, a document's
// term frequency is the weighted sum over fields and terms of the field's
// frequency divided by the field's length normalization; the sum is
// saturated once (K1) and multiplied by the word's idf among the n
// documents, counting a document that has any of its terms in any field.
// It returns each word's document frequency.
func (ix *Index) bm25f(r index.IndexReader, words [][]string, fields []Clause, n int, stats fieldStats, weight float64, into map[uint64]*docScore) ([]int, error) {
	return ix.bm25fw(r, words, nil, fields, n, stats, weight, into)
}

// bm25fw is bm25f with a weight for each word (nil: 1 for all).
func (ix *Index) bm25fw(r index.IndexReader, words [][]string, ww []float64, fields []Clause, n int, stats fieldStats, weight float64, into map[uint64]*docScore) ([]int, error) {
	k1 := ix.tune.K1
	dfs := make([]int, len(words))
	if n == 0 {
		return dfs, nil
	}
	tf := map[uint64]float64{}
	var tfd index.TermFieldDoc
	for i, terms := range words {
		clear(tf)
		for _, c := range fields {
			b := c.B
			if b == 0 {
				b = ix.tune.B
			}
			avg := float64(stats.Len[strings.TrimSuffix(c.Field, stemSuffix)]) / float64(n)
			if avg <= 0 {
				continue
			}
			for _, term := range terms {
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
					tw := 1.0
					if w, ok := ix.termWeight[term]; ok {
						tw = w
					}
					tf[d.ID.Value()] += tw * c.Weight * float64(d.Freq) / (1 - b + b*length/avg)
				}
				if err := rd.Close(); err != nil {
					return nil, err
				}
			}
		}
		df := float64(len(tf))
		dfs[i] = len(tf)
		if df == 0 || (ix.tune.MaxDF > 0 && df > ix.tune.MaxDF*float64(n)) {
			continue
		}
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		if ww != nil {
			idf *= ww[i]
		}
		for doc, x := range tf {
			ds := into[doc]
			if ds == nil {
				ds = &docScore{}
				into[doc] = ds
			}
			ds.score += weight * idf * (x*(k1+1)/(k1+x) + ix.tune.Delta)
			ds.matched++
		}
	}
	return dfs, nil
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

// rank scores the tools for text (see Tuning for the parts of a score). It
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
	q := &ranking{ix: ix, r: r, stats: ix.totals(), tools: map[uint64]*docScore{}, ids: map[uint64]string{}}
	final, err := q.run(text, words)
	if err != nil {
		return nil, err
	}
	for _, f := range final {
		out[f.id] = f.score
	}
	return out, nil
}

// run scores words, the query's, in turn: the words themselves, their
// stemmed twins, the back-off for the words no tool has, the name pairs,
// the server documents and the feedback.
func (q *ranking) run(text string, words []queryWord) ([]scored, error) {
	t := q.ix.tune
	exact := make([]string, len(words))
	stems := make([]string, len(words))
	for i, w := range words {
		exact[i], stems[i] = w.word, w.stem
	}
	// The query's own words: only they count as matched for CoordBonus.
	var ww []float64
	if t.K3 > 0 {
		ww = make([]float64, len(words))
		for i, w := range words {
			ww[i] = (t.K3 + 1) * float64(w.n) / (t.K3 + float64(w.n))
		}
	}
	own := groups(exact)
	if t.BridgeMerged {
		if t.BridgeTermWeight > 0 {
			q.ix.termWeight = map[string]float64{}
			defer func() { q.ix.termWeight = nil }()
		}
		for i, w := range exact {
			tt := t
			if t.BridgeActionsMissing {
				if ok, err := q.has(w); err != nil {
					return nil, err
				} else if ok {
					tt.BridgeThingsOnly = true
				}
			}
			b, err := bridged(q.r, t.Clauses[0].Field, w, tt)
			if err != nil {
				return nil, err
			}
			for _, x := range b {
				if t.BridgeTermWeight > 0 && x != w {
					q.ix.termWeight[x] = t.BridgeTermWeight
				}
			}
			own[i] = append(own[i], b...)
		}
	}
	dfs, err := q.ix.bm25fw(q.r, own, ww, t.Clauses, q.stats.Docs, q.stats, 1, q.tools)
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

// stemTwins adds StemWeight times the score of the query's stems over the
// stemmed twins of the clauses' fields.
func (q *ranking) stemTwins(stems []string) error {
	t := q.ix.tune
	if t.StemWeight <= 0 {
		return nil
	}
	var twins []Clause
	for _, c := range t.Clauses {
		if !strings.HasSuffix(c.Field, stemSuffix) {
			c.Field += stemSuffix
			twins = append(twins, c)
		}
	}
	_, err := q.add(groups(stems), twins, t.StemWeight, false)
	return err
}

// backOff adds the scores of the index words that stand for the query words
// no tool has (dfs holds each word's document frequency).
func (q *ranking) backOff(exact []string, dfs []int) error {
	t := q.ix.tune
	if t.StemBackoff <= 0 && t.FuzzyBackoff <= 0 {
		return nil
	}
	var missing []string
	for i, w := range exact {
		if dfs[i] == 0 {
			missing = append(missing, w)
		}
	}
	variants, near, err := q.ix.backoff(q.r, missing, len(exact))
	if err != nil {
		return err
	}
	if _, err := q.add(variants, t.Clauses, t.StemBackoff, false); err != nil {
		return err
	}
	_, err = q.add(near, t.Clauses, t.FuzzyBackoff, false)
	return err
}

// pairs adds PairWeight times the score of the query's pairs of adjacent
// words among those of the tools' names and titles.
func (q *ranking) pairs(text string) error {
	a := q.ix.bi.Mapping().AnalyzerNamed(analyzerPairs)
	if q.ix.tune.PairWeight <= 0 || a == nil {
		return nil
	}
	var pairs []string
	for _, tok := range a.Analyze([]byte(text)) {
		pairs = append(pairs, string(tok.Term))
	}
	if len(pairs) > maxQueryTerms {
		pairs = pairs[:maxQueryTerms]
	}
	_, err := q.add(groups(pairs), []Clause{{Field: fieldPairs, Weight: 1}}, q.ix.tune.PairWeight, true)
	return err
}

// scored is a tool's final score.
type scored struct {
	doc   uint64
	id    string
	score float64
}

// final combines the tools' scores with their servers' (srv, by server id),
// the coordination bonus and the server fusion.
func (q *ranking) final(srv map[string]float64, words int) ([]scored, error) {
	t := q.ix.tune
	out := make([]scored, 0, len(q.tools))
	best := map[string][2]float64{} // the two best scores of each server's tools
	if t.ServerNorm && len(srv) > 0 {
		var maxTool, maxSrv float64
		for _, ds := range q.tools {
			maxTool = math.Max(maxTool, ds.score)
		}
		for _, v := range srv {
			maxSrv = math.Max(maxSrv, v)
		}
		if maxSrv > 0 {
			norm := make(map[string]float64, len(srv))
			for k, v := range srv {
				norm[k] = v / maxSrv * maxTool * t.ServerWeight
			}
			srv = norm
		}
	}
	for doc, ds := range q.tools {
		id, ok := q.ids[doc]
		if !ok {
			x, err := q.r.ExternalID(index.NewIndexInternalID(nil, doc))
			if err != nil {
				return nil, err
			}
			id = x
			q.ids[doc] = id
		}
		s, _, ok := strings.Cut(id, ".")
		if !ok {
			continue
		}
		sc := ds.score
		if t.CoordBonus > 0 {
			sc *= 1 + t.CoordBonus*float64(ds.matched)/float64(words)
		}
		sc += srv[s]
		out = append(out, scored{doc, id, sc})
		b := best[s]
		if sc > b[0] {
			b[0], b[1] = sc, b[0]
		} else if sc > b[1] {
			b[1] = sc
		}
		best[s] = b
	}
	q.nameFirst(out)
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

// has reports whether the first clause's field holds w.
func (q *ranking) has(w string) (bool, error) {
	return has(q.r, q.ix.tune.Clauses[0].Field, w)
}

// nameFirst lifts the tools whose name, or server and name, is the query
// (q.key) above all others.
func (q *ranking) nameFirst(out []scored) {
	if q.key == "" {
		return
	}
	var top float64
	for _, f := range out {
		top = math.Max(top, f.score)
	}
	for i, f := range out {
		if len(f.id) < len(q.key) {
			continue // the key is no longer than the id, less its dot
		}
		server, name, _ := strings.Cut(f.id, ".")
		if k := nameKey(name); k == q.key || nameKey(server)+k == q.key {
			out[i].score += top
		}
	}
}

// ranking is one query's scoring in progress.
type ranking struct {
	ix    *Index
	r     index.IndexReader
	stats fieldStats
	tools map[uint64]*docScore // by internal document number
	ids   map[uint64]string    // external ids of tools, by internal number
	key   string               // with ExactName: the query as a name (nameKey)
}

// add adds weight times the BM25F score of words over fields to the tools'
// scores, only to tools scored already when onlyScored is set. It returns
// each word's document frequency.
func (q *ranking) add(words [][]string, fields []Clause, weight float64, onlyScored bool) ([]int, error) {
	if len(words) == 0 || weight <= 0 {
		return make([]int, len(words)), nil
	}
	extra := map[uint64]*docScore{}
	dfs, err := q.ix.bm25f(q.r, words, fields, q.stats.Docs, q.stats, weight, extra)
	if err != nil {
		return nil, err
	}
	for doc, ds := range extra {
		if e := q.tools[doc]; e != nil {
			e.score += ds.score
		} else if !onlyScored {
			q.tools[doc] = &docScore{score: ds.score}
		}
	}
	return dfs, nil
}

// servers returns ServerWeight times the BM25 score of each server document
// for words, by server id.
func (q *ranking) servers(words [][]string) (map[string]float64, error) {
	srv := map[string]float64{}
	w := q.ix.tune.ServerWeight
	if w <= 0 || len(q.tools) == 0 {
		return srv, nil
	}
	sdocs := map[uint64]*docScore{}
	if _, err := q.ix.bm25f(q.r, words, []Clause{{Field: fieldSDoc, Weight: 1}}, q.stats.Servers, q.stats, w, sdocs); err != nil {
		return nil, err
	}
	for doc, ds := range sdocs {
		id, err := q.r.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		srv[id] = ds.score
	}
	return srv, nil
}
