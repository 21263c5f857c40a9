package lab

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Tuning holds the analysis and ranking choices of a lab index. Default is
// search's; the other values exist so that the quality harness can measure
// what each choice contributes.
type Tuning struct {
	// Baseline indexes one combined field (name, title, description,
	// parameters and the server's text) with bleve's standard analyzer and
	// ranks with a bleve match query on it: the reference point.
	Baseline bool

	SplitCamel bool   // split camelCase words
	Catenate   bool   // also keep a split word joined ("GitHub": git, hub, github)
	MinRunes   int    // drop shorter words (CJK pairs excepted)
	StopWords  bool   // drop English stop words
	Stemmer    string // "", "porter", "snowball" or "plural": the analyzer of "_st" fields

	// Clauses are the fields a query searches and their weights. Fields:
	// name, title, desc, params, srv (the server's id, title and
	// description on each tool), tool (name, title, desc and params in one
	// field), all (tool and srv in one field) and sib (the names and
	// parameter names of all the server's tools, on each tool). A name ending in "_st"
	// searches the stemmed form (Stemmer must be set).
	Clauses []Clause
	// K1 and B are the BM25 parameters.
	K1, B float64
	// ServerWeight adds this share of the score of the tool's server
	// document (the server's own words and its tools' names) to each tool.
	ServerWeight float64
	// BleveScoring ranks with bleve's own BM25 (one match query per clause,
	// their weighted scores added) instead of this package's BM25F.
	BleveScoring bool

	// StemWeight, when positive, adds a second BM25F over the stemmed twins
	// of the clauses' fields, searched with the query's stems, at this
	// weight. An exact match scores in both passes, a morphological variant
	// only in this one; each pass has its own idf. Stemmer must be set.
	StemWeight float64
	// StemBackoff and FuzzyBackoff, when positive, stand in for a query word
	// that no tool has (see backoff): its variants in the index, the words
	// with the same Porter stem whatever Stemmer says, count as that word at
	// StemBackoff; when it has none, the index words one edit away count as
	// it at FuzzyBackoff. By default (StemWeight 0) the stems of words the
	// index has are not searched: that lost more (tools matching only a
	// variant of a word outranked tools matching the word) than it won.
	StemBackoff, FuzzyBackoff float64
	// PairWeight, when positive, adds this weight times the BM25 score of
	// the query's pairs of adjacent words among the pairs of adjacent words
	// of the tool's name and title: a bonus for a multi-word name said in
	// order. It only lifts tools that match otherwise.
	PairWeight float64
	// CoordBonus multiplies a tool's score by 1 + CoordBonus * m / w, where
	// m of the query's w distinct words are found in the tool.
	CoordBonus float64
	// MaxDF, when positive, ignores a query word found in more than this
	// share of the tools.
	MaxDF float64

	// Feedback is pseudo-relevance feedback (see Feedback); zero is off.
	Feedback Feedback
	// K3, when positive, weights a word the query repeats: n times counts
	// (K3+1)n/(K3+n) times (BM25's query term frequency).
	K3 float64
	// Delta is BM25+'s lower bound: each matched query word adds at least
	// Delta times its idf, however long the document.
	Delta float64
	// ServerFusion, when positive, adds this share of the best score among
	// the other tools of the same server to each tool.
	ServerFusion float64
	// ServerNorm scales the server documents' scores so that the best one
	// adds ServerWeight times the best tool's score (instead of
	// ServerWeight times its own).
	ServerNorm bool
	// ServerDocDesc puts the tools' descriptions in the server document as
	// well as their names and titles.
	ServerDocDesc bool

	// StemAll, when positive, also counts the variants (same Porter stem)
	// of the query words that tools have, as a word of their own at this
	// weight ("node" finds "nodes").
	StemAll float64
	// Compound, when positive, counts an index word that two or three
	// adjacent query words make when joined ("screen shot": screenshot) as
	// a word of its own at this weight.
	Compound float64
	// CompoundPerWord weights a compound by the number of words it joins
	// times Compound.
	CompoundPerWord bool
	// Prefix, when positive, counts the index words that begin with a query
	// word no tool has ("config": configuration) as it, at this weight.
	Prefix float64
	// Bridge, when positive, counts the index words of the vocabulary
	// bridge's set of a query word (search.Related) as a word of their own
	// at this weight.
	Bridge float64
	// BridgeThingsOnly and BridgeActionsOnly limit Bridge to one half of
	// the bridge's sets.
	BridgeThingsOnly, BridgeActionsOnly bool
	// BridgeMerged puts the bridge's words into the query word's own
	// group (they count as the word itself, once) instead of a group of
	// their own; Bridge then only needs to be positive.
	BridgeMerged bool
	// BridgeTermWeight, when positive, weighs a merged bridge word's
	// frequency by this much against the query word's.
	BridgeTermWeight float64
	// BridgeActionsMissing merges the bridge's actions only for query
	// words no tool has (things always).
	BridgeActionsMissing bool
	// BridgeMissing limits Bridge to the query words no tool has.
	BridgeMissing bool
	// ExpandMaxWords, when positive, limits StemAll, Prefix and Bridge to
	// queries of at most this many distinct words.
	ExpandMaxWords int
	// ExactName ranks first the tools whose name, or server and name, is
	// the query (letters and digits compared, case ignored).
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

// Clause is one field a query searches and its weight.
type Clause struct {
	Field  string
	Weight float64
	B      float64 // length normalization of this field; 0 means Tuning.B
}

// Default returns the choices search makes, the lab's reference point: a lab
// index built with it ranks as search.Index does.
func Default() Tuning {
	return Tuning{
		SplitCamel:      true,
		Catenate:        true,
		MinRunes:        2,
		StopWords:       true,
		Clauses:         []Clause{{Field: fieldTool, Weight: 1}, {Field: fieldSrv, Weight: 0.3}},
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

// Baseline is plain BM25 over one combined field with bleve's standard
// analyzer and a bleve match query.
func Baseline() Tuning {
	return Tuning{Baseline: true, Clauses: []Clause{{Field: fieldAll, Weight: 1}}}
}

const (
	tokenizerName = "mcp_tokenizer"
	analyzerWords = "mcp_words"
	analyzerStem  = "mcp_stem"
	analyzerPairs = "mcp_pairs"
)

// fields returns the document fields t searches, so that only those are
// indexed.
func (t Tuning) fields() map[string]bool {
	f := map[string]bool{}
	for _, c := range t.Clauses {
		f[c.Field] = true
		if t.StemWeight > 0 && !strings.HasSuffix(c.Field, stemSuffix) {
			f[c.Field+stemSuffix] = true
		}
	}
	if t.PairWeight > 0 {
		f[fieldPairs] = true
	}
	if t.ServerWeight > 0 && !t.Baseline {
		f[fieldSDoc] = true
	}
	return f
}

func (t Tuning) validate() error {
	known := map[string]bool{}
	for _, f := range textFields {
		known[f] = true
	}
	for _, c := range t.Clauses {
		base, stem := strings.CutSuffix(c.Field, stemSuffix)
		if !known[base] || (stem && (t.Stemmer == "" || t.Baseline)) || c.Weight <= 0 || c.B < 0 || c.B > 1 {
			return fmt.Errorf("lab: invalid clause %s^%v", c.Field, c.Weight)
		}
	}
	if len(t.Clauses) == 0 {
		return fmt.Errorf("lab: no clauses")
	}
	if t.StemWeight > 0 && (t.Stemmer == "" || t.Baseline) {
		return fmt.Errorf("lab: StemWeight needs a Stemmer")
	}
	if (t.PairWeight > 0 || t.Feedback.Weight > 0) && t.Baseline {
		return fmt.Errorf("lab: PairWeight and Feedback need the words analyzer")
	}
	return nil
}

// newMapping builds the index mapping for t. Fields are indexed only: no
// stored values, term vectors or doc values, since a hit is identified by
// its document id alone.
func newMapping(t Tuning) (*mapping.IndexMappingImpl, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.StoreDynamic, m.IndexDynamic, m.DocValuesDynamic = false, false, false

	words, stem := standard.Name, ""
	if !t.Baseline {
		if err := m.AddCustomTokenizer(tokenizerName, map[string]interface{}{
			"type":        tokenizerType,
			"split_camel": t.SplitCamel,
			"catenate":    t.Catenate,
			"min_runes":   float64(t.MinRunes),
		}); err != nil {
			return nil, err
		}
		filters := []string{}
		if t.StopWords {
			filters = append(filters, en.StopName)
		}
		if err := m.AddCustomAnalyzer(analyzerWords, map[string]interface{}{
			"type": custom.Name, "tokenizer": tokenizerName, "token_filters": filters,
		}); err != nil {
			return nil, err
		}
		words = analyzerWords
		if t.PairWeight > 0 {
			if err := m.AddCustomAnalyzer(analyzerPairs, map[string]interface{}{
				"type": custom.Name, "tokenizer": tokenizerName,
				"token_filters": append(append([]string{}, filters...), pairFilterType),
			}); err != nil {
				return nil, err
			}
		}
		if t.Stemmer != "" {
			sf, ok := map[string]string{
				"porter": porter.Name, "snowball": en.SnowballStemmerName, "plural": en.PluralStemmerName,
			}[t.Stemmer]
			if !ok {
				return nil, fmt.Errorf("lab: unknown stemmer %q", t.Stemmer)
			}
			if err := m.AddCustomAnalyzer(analyzerStem, map[string]interface{}{
				"type": custom.Name, "tokenizer": tokenizerName,
				"token_filters": append(filters, sf),
			}); err != nil {
				return nil, err
			}
			stem = analyzerStem
		}
	}
	m.DefaultAnalyzer = words

	doc := bleve.NewDocumentStaticMapping()
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store, kw.IncludeInAll, kw.DocValues = false, false, false
	doc.AddFieldMappingsAt(fieldServer, kw)
	for f := range t.fields() {
		a := words
		if strings.HasSuffix(f, stemSuffix) {
			a = stem
		} else if f == fieldPairs {
			a = analyzerPairs
		}
		tf := textField(a)
		if t.Feedback.Weight > 0 && f == t.Clauses[0].Field {
			tf.DocValues = true // feedback reads the first clause's words of a tool
		}
		doc.AddFieldMappingsAt(f, tf)
	}
	m.DefaultMapping = doc
	return m, m.Validate()
}

func textField(analyzer string) *mapping.FieldMapping {
	f := bleve.NewTextFieldMapping()
	f.Analyzer = analyzer
	f.Store, f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, false, false
	return f
}
