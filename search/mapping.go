package search

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

const (
	tokenizerName = "mcp_tokenizer"
	analyzerWords = "mcp_words"
	analyzerStem  = "mcp_stem"
	analyzerPairs = "mcp_pairs"
)

// stemmers are the token filters Ranking.Stemmer names.
var stemmers = map[string]string{"porter": porter.Name, "snowball": en.SnowballStemmerName, "plural": en.PluralStemmerName}

// newMapping builds the index mapping for r: the server id as a keyword,
// and the text fields r searches (see toolDoc and serverDoc) cut into words
// by the tokenizer of analyze.go, English stop words dropped. Fields are
// indexed only: no stored values, term vectors or doc values, since a hit
// is identified by its document id alone. Ranking reads the postings itself
// (score.go), so no bleve scoring model is set but for bleve's own BM25.
// With DefaultRanking the mapping is the one persisted indexes hold
// (formatVersion).
func newMapping(r Ranking) (*mapping.IndexMappingImpl, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	m := bleve.NewIndexMapping()
	if r.Baseline || r.BleveScoring {
		m.ScoringModel = index.BM25Scoring
	}
	m.StoreDynamic, m.IndexDynamic, m.DocValuesDynamic = false, false, false
	words, stem := standard.Name, ""
	if !r.Baseline {
		var err error
		if stem, err = addAnalyzers(m, r); err != nil {
			return nil, err
		}
		words = analyzerWords
	}
	m.DefaultAnalyzer = words

	doc := bleve.NewDocumentStaticMapping()
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store, kw.IncludeInAll, kw.DocValues = false, false, false
	doc.AddFieldMappingsAt(fieldServer, kw)
	for f := range r.fields() {
		a := words
		if strings.HasSuffix(f, StemSuffix) {
			a = stem
		} else if f == fieldPairs {
			a = analyzerPairs
		}
		tf := bleve.NewTextFieldMapping()
		tf.Analyzer = a
		tf.Store, tf.IncludeInAll, tf.IncludeTermVectors, tf.DocValues = false, false, false, false
		if r.Feedback.Weight > 0 && f == r.Clauses[0].Field {
			tf.DocValues = true // feedback reads the first clause's words of a tool
		}
		doc.AddFieldMappingsAt(f, tf)
	}
	m.DefaultMapping = doc
	return m, m.Validate()
}

// addAnalyzers adds the words analyzer and those r needs besides (word
// pairs, stems) to m, and returns the stems' analyzer's name, if any. The
// tokenizer's options are written only where r differs from the default.
func addAnalyzers(m *mapping.IndexMappingImpl, r Ranking) (string, error) {
	tok := map[string]interface{}{"type": tokenizerType}
	if !r.SplitCamel {
		tok["split_camel"] = false
	}
	if !r.Catenate {
		tok["catenate"] = false
	}
	if r.MinRunes != 0 && r.MinRunes != minWordRunes {
		tok["min_runes"] = float64(r.MinRunes)
	}
	if err := m.AddCustomTokenizer(tokenizerName, tok); err != nil {
		return "", err
	}
	filters := []string{}
	if r.StopWords {
		filters = append(filters, en.StopName)
	}
	if err := m.AddCustomAnalyzer(analyzerWords, map[string]interface{}{
		"type": custom.Name, "tokenizer": tokenizerName, "token_filters": filters,
	}); err != nil {
		return "", err
	}
	if r.PairWeight > 0 {
		if err := m.AddCustomAnalyzer(analyzerPairs, map[string]interface{}{
			"type": custom.Name, "tokenizer": tokenizerName,
			"token_filters": append(append([]string{}, filters...), pairFilterType),
		}); err != nil {
			return "", err
		}
	}
	if r.Stemmer == "" {
		return "", nil
	}
	sf, ok := stemmers[r.Stemmer]
	if !ok {
		return "", fmt.Errorf("search: unknown stemmer %q", r.Stemmer)
	}
	if err := m.AddCustomAnalyzer(analyzerStem, map[string]interface{}{
		"type": custom.Name, "tokenizer": tokenizerName, "token_filters": append(filters, sf),
	}); err != nil {
		return "", err
	}
	return analyzerStem, nil
}
