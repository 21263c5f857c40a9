package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
	"github.com/mcpsh/mcp/search"
)

// variant is one row of the ablation table: the default with one change.
type variant struct {
	name string
	edit func(*search.Tuning)
}

// cl makes clauses from field, weight pairs.
func cl(kv ...interface{}) []search.Clause {
	var out []search.Clause
	for i := 0; i < len(kv); i += 2 {
		out = append(out, search.Clause{Field: kv[i].(string), Weight: kv[i+1].(float64)})
	}
	return out
}

// variants change one thing in the default at a time (the baseline row
// replaces it whole).
var variants = []variant{
	{"baseline: standard analyzer, all, bleve match query", func(t *search.Tuning) { *t = search.BaselineTuning() }},
	{"default (see README)", func(*search.Tuning) {}},
	{"scoring: bleve BM25 instead of BM25F", func(t *search.Tuning) { t.BleveScoring = true }},
	{"analysis: no camelCase split", func(t *search.Tuning) { t.SplitCamel = false }},
	{"analysis: split words not also kept joined", func(t *search.Tuning) { t.Catenate = false }},
	{"analysis: keep 1-character words", func(t *search.Tuning) { t.MinRunes = 1 }},
	{"analysis: keep stop words", func(t *search.Tuning) { t.StopWords = false }},
	{"stemming: porter stems instead of words", func(t *search.Tuning) {
		t.Stemmer = "porter"
		t.Clauses = cl("tool_st", 1.0, "srv_st", .3)
	}},
	{"stemming: porter twin fields alongside, weight 1", func(t *search.Tuning) { t.Stemmer, t.StemWeight = "porter", 1 }},
	{"stemming: porter twin fields alongside, weight 0.3", func(t *search.Tuning) { t.Stemmer, t.StemWeight = "porter", .3 }},
	{"stemming: plural twin fields alongside, weight 1", func(t *search.Tuning) { t.Stemmer, t.StemWeight = "plural", 1 }},
	{"back-off: none", func(t *search.Tuning) { t.StemBackoff, t.FuzzyBackoff = 0, 0 }},
	{"back-off: no stem variants", func(t *search.Tuning) { t.StemBackoff = 0 }},
	{"back-off: no fuzzy", func(t *search.Tuning) { t.FuzzyBackoff = 0 }},
	{"back-off: fuzzy weight 0.5", func(t *search.Tuning) { t.FuzzyBackoff = .5 }},
	{"fields: one combined field (all)", func(t *search.Tuning) { t.Clauses = cl("all", 1.0) }},
	{"fields: tool only (no srv)", func(t *search.Tuning) { t.Clauses = cl("tool", 1.0) }},
	{"fields: srv weight 1", func(t *search.Tuning) { t.Clauses = cl("tool", 1.0, "srv", 1.0) }},
	{"fields: name, title, desc, params, srv apart", func(t *search.Tuning) {
		t.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", 1.0, "srv", .3)
	}},
	{"fields: apart, params 0.5", func(t *search.Tuning) {
		t.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", .5, "srv", .3)
	}},
	{"fields: apart, b per field (name .3, params .9)", func(t *search.Tuning) {
		t.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", 1.0, "srv", .3)
		t.Clauses[0].B, t.Clauses[1].B, t.Clauses[3].B = .3, .3, .9
	}},
	{"fields: name boosted (+name 1)", func(t *search.Tuning) {
		t.Clauses = append(t.Clauses, search.Clause{Field: "name", Weight: 1})
	}},
	{"server doc: weight 0", func(t *search.Tuning) { t.ServerWeight = 0 }},
	{"server doc: weight 1", func(t *search.Tuning) { t.ServerWeight = 1 }},
	{"bm25: b 0.5", func(t *search.Tuning) { t.B = .5 }},
	{"bm25: k1 0.9", func(t *search.Tuning) { t.K1 = .9 }},
	{"bm25: k1 2", func(t *search.Tuning) { t.K1 = 2 }},
	{"proximity: name word pairs, weight 0.5", func(t *search.Tuning) { t.PairWeight = .5 }},
	{"coverage: coordination bonus 0.5", func(t *search.Tuning) { t.CoordBonus = .5 }},
	{"common words: ignore words in >20% of tools", func(t *search.Tuning) { t.MaxDF = .2 }},
	{"feedback: 3 tools, 5 words, weight 0.3", fb(3, 5, .3, 0, 1, false)},
	{"feedback: 5 tools, 10 words, weight 0.3", fb(5, 10, .3, 0, 1, false)},
	{"feedback: 10 tools, 20 words, weight 0.3", fb(10, 20, .3, 0, 1, false)},
	{"feedback: 5 tools, 10 words, weight 0.3, in 2+ tools", fb(5, 10, .3, 0, 2, false)},
	{"feedback: 5 tools, 10 words, weight 0.3, found tools only", fb(5, 10, .3, 0, 1, true)},
	{"feedback: 5 tools, 10 words, weight 0.3, queries of 5+ words", fb(5, 10, .3, 5, 1, false)},
	{"feedback: 10 tools, 10 words, weight 0.1", fb(10, 10, .1, 0, 1, false)},
	{"feedback: 5 tools, 20 words, weight 0.05", fb(5, 20, .05, 0, 1, false)},
	{"feedback RM3 mass: 5 tools, 10 words, share 0.1", fbm(5, 10, .1)},
	{"feedback RM3 mass: 3 tools, 10 words, share 0.2", fbm(3, 10, .2)},
	{"bm25+: delta 0.2", func(t *search.Tuning) { t.Delta = .2 }},
	{"bm25+: delta 0.5", func(t *search.Tuning) { t.Delta = .5 }},
	{"bm25+: delta 1", func(t *search.Tuning) { t.Delta = 1 }},
	{"query term frequency: k3 1", func(t *search.Tuning) { t.K3 = 1 }},
	{"query term frequency: k3 1000", func(t *search.Tuning) { t.K3 = 1000 }},
	{"server fusion: + 0.1 x best sibling tool", func(t *search.Tuning) { t.ServerFusion = .1 }},
	{"server fusion: + 0.3 x best sibling tool", func(t *search.Tuning) { t.ServerFusion = .3 }},
	{"server doc: scaled to the best tool, weight 0.3", func(t *search.Tuning) { t.ServerNorm, t.ServerWeight = true, .3 }},
	{"server doc: scaled to the best tool, weight 0.5", func(t *search.Tuning) { t.ServerNorm = true }},
	{"server doc: with tool descriptions", func(t *search.Tuning) { t.ServerDocDesc = true }},
	{"server doc: with tool descriptions, weight 1", func(t *search.Tuning) { t.ServerDocDesc, t.ServerWeight = true, 1 }},
	{"expansion: sibling names and parameters, weight 0.1", func(t *search.Tuning) {
		t.Clauses = append(t.Clauses, search.Clause{Field: "sib", Weight: .1})
	}},
	{"expansion: sibling names and parameters, weight 0.05", func(t *search.Tuning) {
		t.Clauses = append(t.Clauses, search.Clause{Field: "sib", Weight: .05})
	}},
	{"expansion: sibling names and parameters, weight 0.3", func(t *search.Tuning) {
		t.Clauses = append(t.Clauses, search.Clause{Field: "sib", Weight: .3})
	}},
}

// fbm sets RM3-style feedback, sharing weight times the query's length.
func fbm(docs, terms int, share float64) func(*search.Tuning) {
	return func(t *search.Tuning) {
		t.Feedback = search.Feedback{Docs: docs, Terms: terms, Weight: share, MinDocs: 1, Mass: true}
	}
}

// fb sets pseudo-relevance feedback.
func fb(docs, terms int, weight float64, minWords, minDocs int, onlyScored bool) func(*search.Tuning) {
	return func(t *search.Tuning) {
		t.Feedback = search.Feedback{Docs: docs, Terms: terms, Weight: weight, MinWords: minWords, MinDocs: minDocs, OnlyScored: onlyScored}
	}
}

func ablate(w io.Writer, c *benchdata.Catalog, pops []population, only string) error {
	fmt.Fprint(w, "| variant |")
	for _, p := range pops {
		fmt.Fprintf(w, " %s MRR | %s Hit@5 | %s nDCG@10 |", p.name, p.name, p.name)
	}
	fmt.Fprint(w, "\n|---|")
	for range pops {
		fmt.Fprint(w, "---|---|---|")
	}
	fmt.Fprintln(w)
	for _, v := range variants {
		if only != "" && v.name != "default (see README)" && !strings.Contains(v.name, only) {
			continue
		}
		t := search.DefaultTuning()
		v.edit(&t)
		fmt.Fprintf(w, "| %s |", v.name)
		for _, p := range pops {
			m, err := measure(c, t, p, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			fmt.Fprintf(w, " %.3f | %.3f | %.3f |", m.MRR, m.Hit5, m.NDCG10)
		}
		fmt.Fprintln(w)
	}
	return nil
}
