package search

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
)

const (
	tokenizerName = "mcp_tokenizer"
	analyzerWords = "mcp_words"
)

// newMapping builds the index mapping: the server id as a keyword, and the
// text fields (see toolDoc and serverDoc) cut into words by the tokenizer of
// analyze.go, English stop words dropped. Fields are indexed only: no stored
// values, term vectors or doc values, since a hit is identified by its
// document id alone. Ranking reads the postings itself (score.go), so no
// bleve scoring model is set.
func newMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	m.StoreDynamic, m.IndexDynamic, m.DocValuesDynamic = false, false, false
	if err := m.AddCustomTokenizer(tokenizerName, map[string]interface{}{"type": tokenizerType}); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer(analyzerWords, map[string]interface{}{
		"type": custom.Name, "tokenizer": tokenizerName, "token_filters": []string{en.StopName},
	}); err != nil {
		return nil, err
	}
	m.DefaultAnalyzer = analyzerWords

	doc := bleve.NewDocumentStaticMapping()
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store, kw.IncludeInAll, kw.DocValues = false, false, false
	doc.AddFieldMappingsAt(fieldServer, kw)
	for _, f := range []string{fieldTool, fieldSrv, fieldSDoc} {
		tf := bleve.NewTextFieldMapping()
		tf.Analyzer = analyzerWords
		tf.Store, tf.IncludeInAll, tf.IncludeTermVectors, tf.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f, tf)
	}
	m.DefaultMapping = doc
	return m, m.Validate()
}
