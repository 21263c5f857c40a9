package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsh/mcp/search"
)

// variant is one row of the ablation table: search.DefaultRanking with one
// change. The default row itself, with no edit, measures what mcp search
// ranks with.
type variant struct {
	name string
	edit func(*search.Ranking)
}

// ranking is the value the row measures.
func (v variant) ranking() search.Ranking {
	r := search.DefaultRanking()
	if v.edit != nil {
		v.edit(&r)
	}
	return r
}

// baseline is plain BM25 over one combined field with bleve's standard
// analyzer and a bleve match query.
func baseline() search.Ranking {
	return search.Ranking{Baseline: true, Clauses: []search.Clause{{Field: search.FieldAll, Weight: 1}}}
}

// cl makes clauses from field, weight pairs.
func cl(kv ...interface{}) []search.Clause {
	var out []search.Clause
	for i := 0; i < len(kv); i += 2 {
		out = append(out, search.Clause{Field: kv[i].(string), Weight: kv[i+1].(float64)})
	}
	return out
}

// defaultRow names the row of the default, which --only always keeps.
const defaultRow = "default (see docs/search.md)"

// variants change one thing in the default at a time (the baseline row
// replaces it whole).
var variants = []variant{
	{"baseline: standard analyzer, all, bleve match query", func(r *search.Ranking) { *r = baseline() }},
	{defaultRow, nil},
	{"scoring: bleve BM25 instead of BM25F", func(r *search.Ranking) { r.BleveScoring = true }},
	{"analysis: no camelCase split", func(r *search.Ranking) { r.SplitCamel = false }},
	{"analysis: split words not also kept joined", func(r *search.Ranking) { r.Catenate = false }},
	{"analysis: keep 1-character words", func(r *search.Ranking) { r.MinRunes = 1 }},
	{"analysis: keep stop words", func(r *search.Ranking) { r.StopWords = false }},
	{"stemming: porter stems instead of words", func(r *search.Ranking) {
		r.Stemmer = "porter"
		r.Clauses = cl("tool_st", 1.0, "srv_st", .3)
	}},
	{"stemming: porter twin fields alongside, weight 1", func(r *search.Ranking) { r.Stemmer, r.StemWeight = "porter", 1 }},
	{"stemming: porter twin fields alongside, weight 0.3", func(r *search.Ranking) { r.Stemmer, r.StemWeight = "porter", .3 }},
	{"stemming: plural twin fields alongside, weight 1", func(r *search.Ranking) { r.Stemmer, r.StemWeight = "plural", 1 }},
	{"stems: variants of words tools have too, weight 1", func(r *search.Ranking) { r.StemAll = 1 }},
	{"stems: variants of words tools have too, weight 0.5", func(r *search.Ranking) { r.StemAll = .5 }},
	{"stems: variants of words tools have too, weight 0.3", func(r *search.Ranking) { r.StemAll = .3 }},
	{"stems: variants of words tools have too, weight 0.5, queries of 6 words or fewer", func(r *search.Ranking) { r.StemAll, r.ExpandMaxWords = .5, 6 }},
	{"before the everyday set: no compounds, no exact name first", func(r *search.Ranking) { r.Compound, r.ExactName = 0, false }},
	{"compounds: none", func(r *search.Ranking) { r.Compound = 0 }},
	{"compounds: weight 1, not per word joined", func(r *search.Ranking) { r.CompoundPerWord = false }},
	{"compounds: weight 0.5 per word joined", func(r *search.Ranking) { r.Compound = .5 }},
	{"name: no exact name match first", func(r *search.Ranking) { r.ExactName = false }},
	{"prefixes: completions of a missing word, weight 1", func(r *search.Ranking) { r.Prefix = 1 }},
	{"prefixes: completions of a missing word, weight 0.5", func(r *search.Ranking) { r.Prefix = .5 }},
	{"prefixes: completions of a missing word, weight 0.5, queries of 6 words or fewer", func(r *search.Ranking) { r.Prefix, r.ExpandMaxWords = .5, 6 }},
	{"bridge: vocabulary bridge, weight 1", func(r *search.Ranking) { r.Bridge = bridge(1) }},
	{"bridge: vocabulary bridge, weight 0.5", func(r *search.Ranking) { r.Bridge = bridge(.5) }},
	{"bridge: vocabulary bridge, weight 0.3", func(r *search.Ranking) { r.Bridge = bridge(.3) }},
	{"bridge: vocabulary bridge, weight 0.2", func(r *search.Ranking) { r.Bridge = bridge(.2) }},
	{"bridge: vocabulary bridge, weight 0.5, missing words only", func(r *search.Ranking) { r.Bridge = bridge(.5); r.Bridge.Missing = true }},
	{"bridge: vocabulary bridge, weight 1, missing words only", func(r *search.Ranking) { r.Bridge = bridge(1); r.Bridge.Missing = true }},
	{"bridge: vocabulary bridge, weight 0.5, queries of 6 words or fewer", func(r *search.Ranking) { r.Bridge, r.ExpandMaxWords = bridge(.5), 6 }},
	{"bridge: merged into the word's own group", func(r *search.Ranking) { r.Bridge = bridge(1); r.Bridge.Merged = true }},
	{"bridge: merged, its words at half weight", func(r *search.Ranking) {
		r.Bridge = bridge(1)
		r.Bridge.Merged, r.Bridge.TermWeight = true, .5
	}},
	{"bridge: merged, actions only for words no tool has", func(r *search.Ranking) {
		r.Bridge = bridge(1)
		r.Bridge.Merged, r.Bridge.ActionsMissing = true, true
	}},
	{"bridge: merged into the word's own group, things only", func(r *search.Ranking) {
		r.Bridge = bridge(1)
		r.Bridge.Merged, r.Bridge.ThingsOnly = true, true
	}},
	{"bridge: things only, weight 0.5", func(r *search.Ranking) { r.Bridge = bridge(.5); r.Bridge.ThingsOnly = true }},
	{"bridge: things only, weight 1", func(r *search.Ranking) { r.Bridge = bridge(1); r.Bridge.ThingsOnly = true }},
	{"bridge: actions only, weight 0.5", func(r *search.Ranking) { r.Bridge = bridge(.5); r.Bridge.ActionsOnly = true }},
	{"back-off: none", func(r *search.Ranking) { r.StemBackoff, r.FuzzyBackoff = 0, 0 }},
	{"back-off: no stem variants", func(r *search.Ranking) { r.StemBackoff = 0 }},
	{"back-off: no fuzzy", func(r *search.Ranking) { r.FuzzyBackoff = 0 }},
	{"back-off: fuzzy weight 0.5", func(r *search.Ranking) { r.FuzzyBackoff = .5 }},
	{"fields: one combined field (all)", func(r *search.Ranking) { r.Clauses = cl("all", 1.0) }},
	{"fields: tool only (no srv)", func(r *search.Ranking) { r.Clauses = cl("tool", 1.0) }},
	{"fields: srv weight 1", func(r *search.Ranking) { r.Clauses = cl("tool", 1.0, "srv", 1.0) }},
	{"fields: name, title, desc, params, srv apart", func(r *search.Ranking) {
		r.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", 1.0, "srv", .3)
	}},
	{"fields: apart, params 0.5", func(r *search.Ranking) {
		r.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", .5, "srv", .3)
	}},
	{"fields: apart, b per field (name .3, params .9)", func(r *search.Ranking) {
		r.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", 1.0, "srv", .3)
		r.Clauses[0].B, r.Clauses[1].B, r.Clauses[3].B = .3, .3, .9
	}},
	{"fields: name boosted (+name 1)", func(r *search.Ranking) {
		r.Clauses = append(r.Clauses, search.Clause{Field: "name", Weight: 1})
	}},
	{"server doc: weight 0", func(r *search.Ranking) { r.ServerWeight = 0 }},
	{"server doc: weight 1", func(r *search.Ranking) { r.ServerWeight = 1 }},
	{"bm25: b 0.5", func(r *search.Ranking) { r.B = .5 }},
	{"bm25: k1 0.9", func(r *search.Ranking) { r.K1 = .9 }},
	{"bm25: k1 2", func(r *search.Ranking) { r.K1 = 2 }},
	{"proximity: name word pairs, weight 0.5", func(r *search.Ranking) { r.PairWeight = .5 }},
	{"coverage: coordination bonus 0.5", func(r *search.Ranking) { r.CoordBonus = .5 }},
	{"common words: ignore words in >20% of tools", func(r *search.Ranking) { r.MaxDF = .2 }},
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
	{"bm25+: delta 0.2", func(r *search.Ranking) { r.Delta = .2 }},
	{"bm25+: delta 0.5", func(r *search.Ranking) { r.Delta = .5 }},
	{"bm25+: delta 1", func(r *search.Ranking) { r.Delta = 1 }},
	{"query term frequency: k3 1", func(r *search.Ranking) { r.K3 = 1 }},
	{"query term frequency: k3 1000", func(r *search.Ranking) { r.K3 = 1000 }},
	{"server fusion: + 0.1 x best sibling tool", func(r *search.Ranking) { r.ServerFusion = .1 }},
	{"server fusion: + 0.3 x best sibling tool", func(r *search.Ranking) { r.ServerFusion = .3 }},
	{"server doc: scaled to the best tool, weight 0.3", func(r *search.Ranking) { r.ServerNorm, r.ServerWeight = true, .3 }},
	{"server doc: scaled to the best tool, weight 0.5", func(r *search.Ranking) { r.ServerNorm = true }},
	{"server doc: with tool descriptions", func(r *search.Ranking) { r.ServerDocDesc = true }},
	{"server doc: with tool descriptions, weight 1", func(r *search.Ranking) { r.ServerDocDesc, r.ServerWeight = true, 1 }},
	{"expansion: sibling names and parameters, weight 0.1", func(r *search.Ranking) {
		r.Clauses = append(r.Clauses, search.Clause{Field: "sib", Weight: .1})
	}},
	{"expansion: sibling names and parameters, weight 0.05", func(r *search.Ranking) {
		r.Clauses = append(r.Clauses, search.Clause{Field: "sib", Weight: .05})
	}},
	{"expansion: sibling names and parameters, weight 0.3", func(r *search.Ranking) {
		r.Clauses = append(r.Clauses, search.Clause{Field: "sib", Weight: .3})
	}},
}

// fbm sets RM3-style feedback, sharing weight times the query's length.
func fbm(docs, terms int, share float64) func(*search.Ranking) {
	return func(r *search.Ranking) {
		r.Feedback = search.Feedback{Docs: docs, Terms: terms, Weight: share, MinDocs: 1, Mass: true}
	}
}

// fb sets pseudo-relevance feedback.
func fb(docs, terms int, weight float64, minWords, minDocs int, onlyScored bool) func(*search.Ranking) {
	return func(r *search.Ranking) {
		r.Feedback = search.Feedback{Docs: docs, Terms: terms, Weight: weight, MinWords: minWords, MinDocs: minDocs, OnlyScored: onlyScored}
	}
}

func ablate(w io.Writer, pops []population, only string) error {
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
		if only != "" && v.name != defaultRow && !strings.Contains(v.name, only) {
			continue
		}
		fmt.Fprintf(w, "| %s |", v.name)
		for _, p := range pops {
			m, err := measure(v.ranking(), p, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			fmt.Fprintf(w, " %.3f | %.3f | %.3f |", m.MRR, m.Hit5, m.NDCG10)
		}
		fmt.Fprintln(w)
	}
	return nil
}
