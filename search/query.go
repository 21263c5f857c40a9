package search

import (
	"errors"
	"sort"
	"strings"
	"unicode/utf8"
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
	scores, err := ix.rank(cleanQuery(text))
	if err != nil {
		return nil, err
	}
	return hits(scores, opt, limit), nil
}

// hits are the tools of scores that opt keeps, best first, equal scores by
// server and tool name, at most limit.
func hits(scores []scored, opt Options, limit int) []Hit {
	out := make([]Hit, 0, len(scores))
	for _, s := range scores {
		id, sc := s.id, s.score
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
		out = append(out, Hit{Server: server, Name: name, Score: sc})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Name < b.Name
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
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
