package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsh/mcp/bench/searchquality/lab"
)

// variant is one row of the ablation table: the default with one change,
// made to a lab index (see package lab). The default row itself, with no
// edit, measures the product: search.Index.
type variant struct {
	name string
	edit func(*lab.Tuning)
}

// cl makes clauses from field, weight pairs.
func cl(kv ...interface{}) []lab.Clause {
	var out []lab.Clause
	for i := 0; i < len(kv); i += 2 {
		out = append(out, lab.Clause{Field: kv[i].(string), Weight: kv[i+1].(float64)})
	}
	return out
}

// defaultRow names the row of the default, which --only always keeps.
const defaultRow = "default (see docs/search.md)"

// variants change one thing in the default at a time (the baseline row
// replaces it whole).
var variants = []variant{
	{"baseline: standard analyzer, all, bleve match query", func(t *lab.Tuning) { *t = lab.Baseline() }},
	{defaultRow, nil},
	{"scoring: bleve BM25 instead of BM25F", func(t *lab.Tuning) { t.BleveScoring = true }},
	{"analysis: no camelCase split", func(t *lab.Tuning) { t.SplitCamel = false }},
	{"analysis: split words not also kept joined", func(t *lab.Tuning) { t.Catenate = false }},
	{"analysis: keep 1-character words", func(t *lab.Tuning) { t.MinRunes = 1 }},
	{"analysis: keep stop words", func(t *lab.Tuning) { t.StopWords = false }},
	{"stemming: porter stems instead of words", func(t *lab.Tuning) {
		t.Stemmer = "porter"
		t.Clauses = cl("tool_st", 1.0, "srv_st", .3)
	}},
	{"stemming: porter twin fields alongside, weight 1", func(t *lab.Tuning) { t.Stemmer, t.StemWeight = "porter", 1 }},
	{"stemming: porter twin fields alongside, weight 0.3", func(t *lab.Tuning) { t.Stemmer, t.StemWeight = "porter", .3 }},
	{"stemming: plural twin fields alongside, weight 1", func(t *lab.Tuning) { t.Stemmer, t.StemWeight = "plural", 1 }},
	{"stems: variants of words tools have too, weight 1", func(t *lab.Tuning) { t.StemAll = 1 }},
	{"stems: variants of words tools have too, weight 0.5", func(t *lab.Tuning) { t.StemAll = .5 }},
	{"stems: variants of words tools have too, weight 0.3", func(t *lab.Tuning) { t.StemAll = .3 }},
	{"stems: variants of words tools have too, weight 0.5, queries of 6 words or fewer", func(t *lab.Tuning) { t.StemAll, t.ExpandMaxWords = .5, 6 }},
	{"before the everyday set: no compounds, no exact name first", func(t *lab.Tuning) { t.Compound, t.ExactName = 0, false }},
	{"compounds: none", func(t *lab.Tuning) { t.Compound = 0 }},
	{"compounds: weight 1, not per word joined", func(t *lab.Tuning) { t.CompoundPerWord = false }},
	{"compounds: weight 0.5 per word joined", func(t *lab.Tuning) { t.Compound = .5 }},
	{"name: no exact name match first", func(t *lab.Tuning) { t.ExactName = false }},
	{"prefixes: completions of a missing word, weight 1", func(t *lab.Tuning) { t.Prefix = 1 }},
	{"prefixes: completions of a missing word, weight 0.5", func(t *lab.Tuning) { t.Prefix = .5 }},
	{"prefixes: completions of a missing word, weight 0.5, queries of 6 words or fewer", func(t *lab.Tuning) { t.Prefix, t.ExpandMaxWords = .5, 6 }},
	{"bridge: vocabulary bridge, weight 1", func(t *lab.Tuning) { t.Bridge = 1 }},
	{"bridge: vocabulary bridge, weight 0.5", func(t *lab.Tuning) { t.Bridge = .5 }},
	{"bridge: vocabulary bridge, weight 0.3", func(t *lab.Tuning) { t.Bridge = .3 }},
	{"bridge: vocabulary bridge, weight 0.2", func(t *lab.Tuning) { t.Bridge = .2 }},
	{"bridge: vocabulary bridge, weight 0.5, missing words only", func(t *lab.Tuning) { t.Bridge, t.BridgeMissing = .5, true }},
	{"bridge: vocabulary bridge, weight 1, missing words only", func(t *lab.Tuning) { t.Bridge, t.BridgeMissing = 1, true }},
	{"bridge: vocabulary bridge, weight 0.5, queries of 6 words or fewer", func(t *lab.Tuning) { t.Bridge, t.ExpandMaxWords = .5, 6 }},
	{"bridge: merged into the word's own group", func(t *lab.Tuning) { t.Bridge, t.BridgeMerged = 1, true }},
	{"bridge: merged, its words at half weight", func(t *lab.Tuning) { t.Bridge, t.BridgeMerged, t.BridgeTermWeight = 1, true, .5 }},
	{"bridge: merged, actions only for words no tool has", func(t *lab.Tuning) { t.Bridge, t.BridgeMerged, t.BridgeActionsMissing = 1, true, true }},
	{"bridge: merged into the word's own group, things only", func(t *lab.Tuning) { t.Bridge, t.BridgeMerged, t.BridgeThingsOnly = 1, true, true }},
	{"bridge: things only, weight 0.5", func(t *lab.Tuning) { t.Bridge, t.BridgeThingsOnly = .5, true }},
	{"bridge: things only, weight 1", func(t *lab.Tuning) { t.Bridge, t.BridgeThingsOnly = 1, true }},
	{"bridge: actions only, weight 0.5", func(t *lab.Tuning) { t.Bridge, t.BridgeActionsOnly = .5, true }},
	{"back-off: none", func(t *lab.Tuning) { t.StemBackoff, t.FuzzyBackoff = 0, 0 }},
	{"back-off: no stem variants", func(t *lab.Tuning) { t.StemBackoff = 0 }},
	{"back-off: no fuzzy", func(t *lab.Tuning) { t.FuzzyBackoff = 0 }},
	{"back-off: fuzzy weight 0.5", func(t *lab.Tuning) { t.FuzzyBackoff = .5 }},
	{"fields: one combined field (all)", func(t *lab.Tuning) { t.Clauses = cl("all", 1.0) }},
	{"fields: tool only (no srv)", func(t *lab.Tuning) { t.Clauses = cl("tool", 1.0) }},
	{"fields: srv weight 1", func(t *lab.Tuning) { t.Clauses = cl("tool", 1.0, "srv", 1.0) }},
	{"fields: name, title, desc, params, srv apart", func(t *lab.Tuning) {
		t.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", 1.0, "srv", .3)
	}},
	{"fields: apart, params 0.5", func(t *lab.Tuning) {
		t.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", .5, "srv", .3)
	}},
	{"fields: apart, b per field (name .3, params .9)", func(t *lab.Tuning) {
		t.Clauses = cl("name", 1.0, "title", 1.0, "desc", 1.0, "params", 1.0, "srv", .3)
		t.Clauses[0].B, t.Clauses[1].B, t.Clauses[3].B = .3, .3, .9
	}},
	{"fields: name boosted (+name 1)", func(t *lab.Tuning) {
		t.Clauses = append(t.Clauses, lab.Clause{Field: "name", Weight: 1})
	}},
	{"server doc: weight 0", func(t *lab.Tuning) { t.ServerWeight = 0 }},
	{"server doc: weight 1", func(t *lab.Tuning) { t.ServerWeight = 1 }},
	{"bm25: b 0.5", func(t *lab.Tuning) { t.B = .5 }},
	{"bm25: k1 0.9", func(t *lab.Tuning) { t.K1 = .9 }},
	{"bm25: k1 2", func(t *lab.Tuning) { t.K1 = 2 }},
	{"proximity: name word pairs, weight 0.5", func(t *lab.Tuning) { t.PairWeight = .5 }},
	{"coverage: coordination bonus 0.5", func(t *lab.Tuning) { t.CoordBonus = .5 }},
	{"common words: ignore words in >20% of tools", func(t *lab.Tuning) { t.MaxDF = .2 }},
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
	{"bm25+: delta 0.2", func(t *lab.Tuning) { t.Delta = .2 }},
	{"bm25+: delta 0.5", func(t *lab.Tuning) { t.Delta = .5 }},
	{"bm25+: delta 1", func(t *lab.Tuning) { t.Delta = 1 }},
	{"query term frequency: k3 1", func(t *lab.Tuning) { t.K3 = 1 }},
	{"query term frequency: k3 1000", func(t *lab.Tuning) { t.K3 = 1000 }},
	{"server fusion: + 0.1 x best sibling tool", func(t *lab.Tuning) { t.ServerFusion = .1 }},
	{"server fusion: + 0.3 x best sibling tool", func(t *lab.Tuning) { t.ServerFusion = .3 }},
	{"server doc: scaled to the best tool, weight 0.3", func(t *lab.Tuning) { t.ServerNorm, t.ServerWeight = true, .3 }},
	{"server doc: scaled to the best tool, weight 0.5", func(t *lab.Tuning) { t.ServerNorm = true }},
	{"server doc: with tool descriptions", func(t *lab.Tuning) { t.ServerDocDesc = true }},
	{"server doc: with tool descriptions, weight 1", func(t *lab.Tuning) { t.ServerDocDesc, t.ServerWeight = true, 1 }},
	{"expansion: sibling names and parameters, weight 0.1", func(t *lab.Tuning) {
		t.Clauses = append(t.Clauses, lab.Clause{Field: "sib", Weight: .1})
	}},
	{"expansion: sibling names and parameters, weight 0.05", func(t *lab.Tuning) {
		t.Clauses = append(t.Clauses, lab.Clause{Field: "sib", Weight: .05})
	}},
	{"expansion: sibling names and parameters, weight 0.3", func(t *lab.Tuning) {
		t.Clauses = append(t.Clauses, lab.Clause{Field: "sib", Weight: .3})
	}},
}

// fbm sets RM3-style feedback, sharing weight times the query's length.
func fbm(docs, terms int, share float64) func(*lab.Tuning) {
	return func(t *lab.Tuning) {
		t.Feedback = lab.Feedback{Docs: docs, Terms: terms, Weight: share, MinDocs: 1, Mass: true}
	}
}

// fb sets pseudo-relevance feedback.
func fb(docs, terms int, weight float64, minWords, minDocs int, onlyScored bool) func(*lab.Tuning) {
	return func(t *lab.Tuning) {
		t.Feedback = lab.Feedback{Docs: docs, Terms: terms, Weight: weight, MinWords: minWords, MinDocs: minDocs, OnlyScored: onlyScored}
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
		open := product
		if v.edit != nil {
			t := lab.Default()
			v.edit(&t)
			open = tuned(t)
		}
		fmt.Fprintf(w, "| %s |", v.name)
		for _, p := range pops {
			m, err := measure(open, p, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			fmt.Fprintf(w, " %.3f | %.3f | %.3f |", m.MRR, m.Hit5, m.NDCG10)
		}
		fmt.Fprintln(w)
	}
	return nil
}
