package search

import (
	"fmt"
	"strings"
)

// Ranking holds every analysis and ranking choice of an index. The index
// and query code read it and nothing else ranks: DefaultRanking is what
// `mcp search` and `mcp serve` use (Open, OpenReadOnly and OpenMem), and
// the other values exist so that bench/searchquality can measure what each
// choice contributes (its --ablation table changes one field of the
// default at a time; docs/search.md and docs/benchmarks.md give the
// figures). A field's zero value turns its feature off, except where its
// comment says otherwise.
type Ranking struct {
	// Baseline indexes one combined field (FieldAll) with bleve's standard
	// analyzer and ranks with a bleve match query on it: the reference
	// point, plain BM25 (ablation row "baseline").
	Baseline bool

	// SplitCamel splits camelCase words; default on ("analysis: no
	// camelCase split" lowers the task queries).
	SplitCamel bool
	// Catenate also keeps a split word joined ("GitHub": git, hub,
	// github); default on ("analysis: split words not also kept joined").
	Catenate bool
	// MinRunes drops shorter words, pairs of CJK characters aside; default
	// 2 ("analysis: keep 1-character words"). Zero means 2.
	MinRunes int
	// StopWords drops English stop words; default on ("analysis: keep stop
	// words").
	StopWords bool
	// Stemmer is "", "porter", "snowball" or "plural": the analyzer of the
	// stemmed twin fields (a Clause field ending in StemSuffix). Default
	// none: indexing stems lost on every set ("stemming: …" rows).
	Stemmer string

	// Clauses are the fields a query searches and their weights: by
	// default the tool's own text at 1 and its server's at 0.3 ("fields:
	// …" rows). The first clause's field is the one whose words the
	// back-off, expansion and feedback look up.
	Clauses []Clause
	// K1 and B are the BM25 parameters: 1.2 and 0.75 ("bm25: …" rows).
	K1, B float64
	// ServerWeight adds this share of the score of the tool's server
	// document (the server's own words and its tools' names) to each tool;
	// default 0.5 ("server doc: weight 0", "server doc: weight 1").
	ServerWeight float64
	// BleveScoring ranks with bleve's own BM25 (one match query per clause,
	// their weighted scores added) instead of BM25F computed from the
	// postings: bleve's lost on every set ("scoring: bleve BM25 instead of
	// BM25F"; see score.go).
	BleveScoring bool

	// StemWeight, when positive, adds a second BM25F over the stemmed twins
	// of the clauses' fields, searched with the query's stems, at this
	// weight. Stemmer must be set. Default 0.
	StemWeight float64
	// StemBackoff and FuzzyBackoff, when positive, stand in for a query word
	// that no tool has (see backoff): its variants in the index (the words
	// with the same Porter stem) count as that word at StemBackoff; when it
	// has none, the index words one edit away count as it at FuzzyBackoff.
	// Both default to 1 ("back-off: …" rows; without the edit the keyword
	// queries with a typo fall from 0.952 to 0.746).
	StemBackoff, FuzzyBackoff float64
	// PairWeight, when positive, adds this weight times the BM25 score of
	// the query's pairs of adjacent words among the pairs of adjacent words
	// of the tool's name and title. Default 0 ("proximity: …").
	PairWeight float64
	// CoordBonus multiplies a tool's score by 1 + CoordBonus * m / w, where
	// m of the query's w distinct words are found in the tool. Default 0
	// ("coverage: …").
	CoordBonus float64
	// MaxDF, when positive, ignores a query word found in more than this
	// share of the tools. Default 0 ("common words: …").
	MaxDF float64

	// Feedback is pseudo-relevance feedback; zero is off, the default
	// ("feedback: …" rows: none raised both halves of the task queries).
	Feedback Feedback
	// K3, when positive, weights a word the query repeats: n times counts
	// (K3+1)n/(K3+n) times (BM25's query term frequency). Default 0.
	K3 float64
	// Delta is BM25+'s lower bound: each matched query word adds at least
	// Delta times its idf, however long the document. Default 0 ("bm25+:
	// …").
	Delta float64
	// ServerFusion, when positive, adds this share of the best score among
	// the other tools of the same server to each tool. Default 0.
	ServerFusion float64
	// ServerNorm scales the server documents' scores so that the best one
	// adds ServerWeight times the best tool's score (instead of
	// ServerWeight times its own). Default off.
	ServerNorm bool
	// ServerDocDesc puts the tools' descriptions in the server document as
	// well as their names and titles. Default off.
	ServerDocDesc bool

	// StemAll, when positive, also counts the variants (same Porter stem)
	// of the query words that tools have, as a word of their own at this
	// weight ("node" finds "nodes"). Default 0: it raises the everyday set
	// but lowers the odd half of the task queries at every weight
	// ("stems: …" rows).
	StemAll float64
	// Compound, when positive, counts an index word that two or three
	// adjacent query words make when joined ("screen shot": screenshot) as
	// a word of its own at this weight; default 1 ("compounds: none" lowers
	// the everyday set and the keyword queries with a typo).
	Compound float64
	// CompoundPerWord weights a compound by the number of words it joins
	// times Compound; default on.
	CompoundPerWord bool
	// Prefix, when positive, counts the index words that begin with a query
	// word no tool has ("config": configuration) as it, at this weight.
	// Default 0: it raises no set on top of compounds ("prefixes: …").
	Prefix float64
	// Bridge is a vocabulary of words that mean the same thing; its zero
	// value, the default, is off ("bridge: …" rows: no form of it raised
	// both halves of the task queries).
	Bridge Bridge
	// ExpandMaxWords, when positive, limits StemAll, Prefix and Bridge to
	// queries of at most this many distinct words.
	ExpandMaxWords int
	// ExactName ranks first the tools whose name, or server and name, is
	// the query (letters and digits compared, case ignored); default on
	// ("name: no exact name match first" lowers the keyword queries).
	ExactName bool
}

// Feedback is RM3-style pseudo-relevance feedback: the query is run, the
// words that best set apart its first Docs tools (presence in them, weighted
// by their scores, times idf) are taken, at most Terms of them, and the
// query is run again with them added at Weight times their share of the best
// one. Only queries of at least MinWords distinct words get feedback.
type Feedback struct {
	Docs, Terms int
	Weight      float64
	MinWords    int
	MinDocs     int  // a word must be in at least this many of the Docs tools
	OnlyScored  bool // added words only lift tools the query found
	// Mass, when set, shares Weight times the number of query words among
	// the added words by their weights (RM3's interpolation) instead.
	Mass bool
}

// Bridge is a vocabulary bridge: sets of words that mean the same thing,
// things (nouns and abbreviations) apart from actions (verbs), each word
// lowercase and one token as the analyzer makes it. With Weight positive,
// a query word of a set (or its plural) also counts the index words of the
// other members, and their plurals, as a word of its own at Weight.
type Bridge struct {
	Things, Actions [][]string
	Weight          float64
	// ThingsOnly and ActionsOnly limit the bridge to one half of its sets.
	ThingsOnly, ActionsOnly bool
	// Merged puts the bridge's words into the query word's own group (they
	// count as the word itself, once) instead of a group of their own.
	Merged bool
	// TermWeight, when positive, weighs a merged bridge word's frequency
	// by this much against the query word's.
	TermWeight float64
	// ActionsMissing merges the actions only for query words no tool has
	// (things always).
	ActionsMissing bool
	// Missing limits the bridge to the query words no tool has.
	Missing bool
}

// Clause is one field a query searches and its weight.
type Clause struct {
	Field  string
	Weight float64
	B      float64 // length normalization of this field; 0 means Ranking.B
}

// DefaultRanking returns the choices `mcp search` makes. Each was kept
// because it raised at least one benchmark set and lowered no set's MRR
// (docs/search.md, "How the ranking was chosen").
func DefaultRanking() Ranking {
	return Ranking{
		SplitCamel:      true,
		Catenate:        true,
		MinRunes:        minWordRunes,
		StopWords:       true,
		Clauses:         []Clause{{Field: FieldTool, Weight: 1}, {Field: FieldSrv, Weight: 0.3}},
		K1:              1.2,
		B:               0.75,
		ServerWeight:    0.5,
		StemBackoff:     1,
		FuzzyBackoff:    1,
		Compound:        1,
		CompoundPerWord: true,
		ExactName:       true,
	}
}

// fields returns the document fields r searches, so that only those are
// indexed.
func (r Ranking) fields() map[string]bool {
	f := map[string]bool{}
	for _, c := range r.Clauses {
		f[c.Field] = true
		if r.StemWeight > 0 && !strings.HasSuffix(c.Field, StemSuffix) {
			f[c.Field+StemSuffix] = true
		}
	}
	if r.PairWeight > 0 {
		f[fieldPairs] = true
	}
	if r.ServerWeight > 0 && !r.Baseline {
		f[fieldSDoc] = true
	}
	return f
}

func (r Ranking) validate() error {
	known := map[string]bool{}
	for _, f := range textFields {
		known[f] = true
	}
	for _, c := range r.Clauses {
		base, stem := strings.CutSuffix(c.Field, StemSuffix)
		if !known[base] || (stem && (r.Stemmer == "" || r.Baseline)) || c.Weight <= 0 || c.B < 0 || c.B > 1 {
			return fmt.Errorf("search: invalid clause %s^%v", c.Field, c.Weight)
		}
	}
	switch {
	case len(r.Clauses) == 0:
		return fmt.Errorf("search: no clauses")
	case r.MinRunes < 0 || r.MinRunes > maxWordRunes:
		return fmt.Errorf("search: MinRunes %d out of range", r.MinRunes)
	case r.StemWeight > 0 && (r.Stemmer == "" || r.Baseline):
		return fmt.Errorf("search: StemWeight needs a Stemmer")
	case (r.PairWeight > 0 || r.Feedback.Weight > 0) && r.Baseline:
		return fmt.Errorf("search: PairWeight and Feedback need the words analyzer")
	}
	return nil
}
