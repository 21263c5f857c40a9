package search

import (
	"errors"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Query bounds. A longer query is cut at MaxQueryBytes (on a character
// boundary) and only its first maxQueryTerms distinct words count: no query
// text can make a search slow.
const (
	MaxQueryBytes = 4096
	maxQueryTerms = 64
	DefaultLimit  = 10
	MaxLimit      = 1000
)

// Options size and narrow a search.
type Options struct {
	// Limit is the most hits to return: 0 means DefaultLimit; more than
	// MaxLimit means MaxLimit.
	Limit int
	// Server, when set, keeps only that server's tools.
	Server string
	// Only, when set, keeps only the tools it returns true for. It is
	// applied before Limit, so a narrow filter still fills the page.
	Only func(server, tool string) bool
}

// Hit is one ranked tool.
type Hit struct {
	Server string  `json:"server"`
	Name   string  `json:"name"`
	Score  float64 `json:"score"`
}

// Search ranks the indexed tools for text and returns the best ones, best
// first; equal scores are ordered by server and tool name so output is
// stable. The text is only ever analyzed into words and matched as literal
// terms: nothing in it is query syntax. A text with no searchable words
// returns no hits and no error.
func (ix *Index) Search(text string, opt Options) ([]Hit, error) {
	limit := opt.Limit
	switch {
	case limit < 0:
		return nil, errors.New("search: negative limit")
	case limit == 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	ix.mu.Lock()
	err := ix.flush()
	ix.mu.Unlock()
	if err != nil {
		return nil, err
	}
	text = cleanQuery(text)
	var scores map[string]float64
	switch {
	case ix.tune.Baseline:
		mq := query.NewMatchQuery(text)
		mq.SetField(fieldAll)
		scores = map[string]float64{}
		err = ix.collect(mq, 1, scores)
	case ix.tune.BleveScoring:
		scores, err = ix.bleveRank(text)
	default:
		scores, err = ix.rank(text)
	}
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(scores))
	for id, sc := range scores {
		server, name, ok := strings.Cut(id, ".")
		if !ok { // a server document
			continue
		}
		if opt.Server != "" && server != opt.Server {
			continue
		}
		if opt.Only != nil && !opt.Only(server, name) {
			continue
		}
		hits = append(hits, Hit{Server: server, Name: name, Score: sc})
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Name < b.Name
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// cleanQuery makes text valid UTF-8 no longer than MaxQueryBytes.
func cleanQuery(text string) string {
	text = strings.ToValidUTF8(text, " ")
	if len(text) > MaxQueryBytes {
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	return text
}

// fieldQuery is what a match query on field does, with repeated words
// counted once and at most maxQueryTerms words: a disjunction of one term
// query per distinct word, as the field's analyzer cuts them. It returns nil
// when the text has no words.
func fieldQuery(m mapping.IndexMapping, field, text string) query.Query {
	a := m.AnalyzerNamed(m.AnalyzerNameForPath(field))
	if a == nil {
		return nil
	}
	seen := map[string]bool{}
	var qs []query.Query
	for _, tok := range a.Analyze([]byte(text)) {
		term := string(tok.Term)
		if seen[term] {
			continue
		}
		seen[term] = true
		tq := query.NewTermQuery(term)
		tq.SetField(field)
		qs = append(qs, tq)
		if len(qs) == maxQueryTerms {
			break
		}
	}
	if len(qs) == 0 {
		return nil
	}
	d := query.NewDisjunctionQuery(qs)
	d.SetMin(1)
	return d
}

// bleveRank scores with bleve's BM25: one match query per clause, searched
// on its own, weighted and added, plus the server document's score.
func (ix *Index) bleveRank(text string) (map[string]float64, error) {
	m := ix.bi.Mapping()
	scores := map[string]float64{}
	for _, c := range ix.tune.Clauses {
		if q := fieldQuery(m, c.Field, text); q != nil {
			if err := ix.collect(q, c.Weight, scores); err != nil {
				return nil, err
			}
		}
	}
	if w := ix.tune.ServerWeight; w > 0 && len(scores) > 0 {
		if q := fieldQuery(m, fieldSDoc, text); q != nil {
			srv := map[string]float64{}
			if err := ix.collect(q, w, srv); err != nil {
				return nil, err
			}
			for id := range scores {
				if s, _, ok := strings.Cut(id, "."); ok {
					scores[id] += srv[s]
				}
			}
		}
	}
	return scores, nil
}

// collect adds weight times the score of every document matching q to
// scores.
func (ix *Index) collect(q query.Query, weight float64, scores map[string]float64) error {
	n, err := ix.bi.DocCount()
	if err != nil || n == 0 {
		return err
	}
	req := bleve.NewSearchRequestOptions(q, int(n), 0, false)
	res, err := ix.bi.Search(req)
	if err != nil {
		return err
	}
	for _, h := range res.Hits {
		scores[h.ID] += weight * h.Score
	}
	return nil
}
