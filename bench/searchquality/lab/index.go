// Package lab is package search's ranking with every analysis and ranking
// choice made a knob (Tuning), so that bench/searchquality can measure what
// each choice contributes: its ablation table changes one knob of Default at
// a time.
//
// The lab is a copy, not a wrapper: the choices it varies sit inside the
// tokenizer, the documents and the BM25F loop, where search has no knob and
// should have none. Default is the product's ranking, and the harness's
// tests check that a lab index built with it ranks every benchmark query as
// search.Index does, scores included; a change to search's ranking that the
// lab does not follow fails them. A lab index lives in memory and takes each
// server once; it has none of search's persistence, locking or incremental
// updates.
package lab

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/search"
)

// batchSize is search's: a lab index feeds bleve in the same batches.
const batchSize = 1000

// maxQueryTerms is search's bound on the distinct words of a query that
// count.
const maxQueryTerms = 64

// Index is a lab index over tools. It is not safe for concurrent use.
type Index struct {
	bi   bleve.Index
	tune Tuning
	// termWeight, while a query with BridgeTermWeight is ranked, weighs
	// the bridge's words in their groups.
	termWeight map[string]float64
	stats      map[string]fieldStats // by server
	pending    *bleve.Batch          // changes not yet applied to bi
}

// Open returns an empty index in memory built with t.
func Open(t Tuning) (*Index, error) {
	m, err := newMapping(t)
	if err != nil {
		return nil, err
	}
	// scorch, not bleve.NewMemOnly: only scorch scores with BM25.
	bi, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	return &Index{bi: bi, tune: t, stats: map[string]fieldStats{}, pending: bi.NewBatch()}, nil
}

// Close releases the index.
func (ix *Index) Close() error { return ix.bi.Close() }

// Replace indexes the tools of server, which must be new to the index, as
// search.Index.Replace does for a server it has not seen.
func (ix *Index) Replace(server string, info search.ServerInfo, tools []catalog.Tool) error {
	if _, ok := ix.stats[server]; ok {
		return fmt.Errorf("lab: server %q given twice", server)
	}
	m := ix.bi.Mapping()
	fields := ix.tune.fields()
	stats := fieldStats{Len: map[string]int{}}
	lens := map[string]int{}
	sib := ""
	if fields[fieldSib] {
		sib = siblingText(tools)
	}
	for _, t := range tools {
		if t.Server != server {
			return fmt.Errorf("lab: tool %q belongs to server %q, not %q", t.Name, t.Server, server)
		}
		doc := toolDoc(t, info, sib, fields)
		stats.add(measure(m, doc, lens))
		stats.Docs++
		if err := ix.index(t.ID(), doc); err != nil {
			return err
		}
	}
	if len(tools) > 0 && fields[fieldSDoc] {
		doc := serverDoc(server, info, tools, ix.tune.ServerDocDesc, fields)
		stats.add(measure(m, doc, lens))
		stats.Servers++
		if err := ix.index(server, doc); err != nil {
			return err
		}
	} else {
		// search deletes the server document it does not write; the
		// delete counts towards the batch.
		ix.pending.Delete(server)
		if err := ix.flushIfFull(); err != nil {
			return err
		}
	}
	ix.stats[server] = stats
	return nil
}

func (ix *Index) index(id string, doc map[string]interface{}) error {
	if err := ix.pending.Index(id, doc); err != nil {
		return err
	}
	return ix.flushIfFull()
}

func (ix *Index) flushIfFull() error {
	if ix.pending.Size() < batchSize {
		return nil
	}
	return ix.flush()
}

func (ix *Index) flush() error {
	if ix.pending.Size() == 0 {
		return nil
	}
	err := ix.bi.Batch(ix.pending)
	ix.pending = ix.bi.NewBatch()
	return err
}

// totals sums the field statistics of every server.
func (ix *Index) totals() fieldStats {
	t := fieldStats{Len: map[string]int{}}
	for _, s := range ix.stats {
		t.Docs += s.Docs
		t.Servers += s.Servers
		t.add(s.Len)
	}
	return t
}

// Search ranks the indexed tools for text as search.Index.Search does, with
// the same limits, filters and order.
func (ix *Index) Search(text string, opt search.Options) ([]search.Hit, error) {
	limit := opt.Limit
	switch {
	case limit < 0:
		return nil, errors.New("lab: negative limit")
	case limit == 0:
		limit = search.DefaultLimit
	case limit > search.MaxLimit:
		limit = search.MaxLimit
	}
	if err := ix.flush(); err != nil {
		return nil, err
	}
	text = cleanQuery(text)
	var scores map[string]float64
	var err error
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
	return hits(scores, opt, limit), nil
}

// hits are the tools of scores that opt keeps, best first, equal scores by
// server and tool name, at most limit.
func hits(scores map[string]float64, opt search.Options, limit int) []search.Hit {
	out := make([]search.Hit, 0, len(scores))
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
		out = append(out, search.Hit{Server: server, Name: name, Score: sc})
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

// cleanQuery makes text valid UTF-8 no longer than search.MaxQueryBytes,
// as search does.
func cleanQuery(text string) string {
	text = strings.ToValidUTF8(text, " ")
	if len(text) > search.MaxQueryBytes {
		cut := search.MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	return text
}
