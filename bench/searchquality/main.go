// Command searchquality measures how well `mcp search` ranks tools: it
// indexes a catalog file with the search package, runs every labelled query
// and prints Hit@1/5/10, Recall@5/10, MRR and nDCG@10 as JSON.
//
//	go run ./bench/searchquality --catalog bench/data/livemcpbench/catalog.jsonl --queries bench/data/livemcpbench/queries.jsonl \
//	    --keyword bench/searchquality/keyword_queries.jsonl --everyday bench/searchquality/everyday_queries.jsonl
//
// --catalog and --queries default to those files, for a run from the
// repository's root.
//
// With --everyday it also measures everyday phrases (everyday) over a catalog
// of its own: the pinned tool lists of real servers under --lists (default
// bench/data; see benchdata.LoadToolLists).
//
// With --keyword it also measures the keyword queries with one typo each
// (keyword_typo: the two middle letters of the longest word swapped). --halves
// adds the task queries at even and at odd positions as populations of their
// own (task_even, task_odd), to check a choice tuned on one half against the
// other. --baseline measures plain BM25 over one combined field instead, and
// --ablation prints a table of what each analysis and ranking choice
// contributes (each row changes one thing in the default); --only SUBSTR
// keeps the rows whose name contains SUBSTR, and the default. Every row is
// measured on a search.Index: the default with search.DefaultRanking, what
// mcp search ranks with, and each other row with one change to it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
	"github.com/mcpsh/mcp/search"
)

// depth is how many hits each query asks for: MRR looks this deep.
const depth = 100

func main() {
	catalogPath := flag.String("catalog", "bench/data/livemcpbench/catalog.jsonl", "catalog file (JSON lines, one tool a line)")
	queriesPath := flag.String("queries", "bench/data/livemcpbench/queries.jsonl", "task queries file (JSON lines)")
	keywordPath := flag.String("keyword", "", "keyword queries file (JSON lines), optional")
	everydayPath := flag.String("everyday", "", "everyday phrases file (JSON lines) over the --lists catalog, optional")
	listsDir := flag.String("lists", "bench/data", "directory of pinned tool lists, one directory a server")
	baseline := flag.Bool("baseline", false, "measure plain BM25 over one combined field")
	ablation := flag.Bool("ablation", false, "print the ablation table (markdown) instead of JSON")
	misses := flag.Bool("misses", false, "list on stderr the queries with no gold tool in the top 5")
	split := flag.Bool("halves", false, "also measure the task queries at even and at odd positions")
	only := flag.String("only", "", "with --ablation: only the rows whose name contains this (and the default)")
	flag.Parse()
	if *catalogPath == "" || *queriesPath == "" {
		fmt.Fprintln(os.Stderr, "searchquality: --catalog and --queries are required")
		os.Exit(2)
	}
	o := options{baseline: *baseline, ablation: *ablation, misses: *misses, halves: *split, only: *only,
		everyday: *everydayPath, lists: *listsDir}
	if err := run(os.Stdout, *catalogPath, *queriesPath, *keywordPath, o); err != nil {
		fmt.Fprintln(os.Stderr, "searchquality:", err)
		os.Exit(1)
	}
}

// population is a set of queries and the catalog they are asked of.
type population struct {
	name    string
	cat     *benchdata.Catalog
	queries []benchdata.Query
}

// options are the switches of a run.
type options struct {
	baseline, ablation, misses, halves bool
	only                               string
	everyday, lists                    string // phrases file and tool lists directory
}

func run(w io.Writer, catalogPath, queriesPath, keywordPath string, o options) error {
	c, err := benchdata.LoadCatalog(catalogPath)
	if err != nil {
		return err
	}
	tq, err := benchdata.LoadQueries(queriesPath, c)
	if err != nil {
		return err
	}
	pops := []population{{"task", c, tq}}
	if o.halves {
		even, odd := halves(tq)
		pops = append(pops, population{"task_even", c, even}, population{"task_odd", c, odd})
	}
	if keywordPath != "" {
		kq, err := benchdata.LoadQueries(keywordPath, c)
		if err != nil {
			return err
		}
		pops = append(pops, population{"keyword", c, kq}, population{"keyword_typo", c, typos(kq)})
	}
	if o.everyday != "" {
		ec, err := benchdata.LoadToolLists(o.lists)
		if err != nil {
			return err
		}
		eq, err := benchdata.LoadQueries(o.everyday, ec)
		if err != nil {
			return err
		}
		pops = append(pops, population{"everyday", ec, eq})
	}
	if o.ablation {
		return ablate(w, pops, o.only)
	}
	r, name := search.DefaultRanking(), "default"
	if o.baseline {
		r, name = baseline(), "baseline"
	}
	out := map[string]interface{}{"tuning": name, "tools": len(c.IDs)}
	if o.everyday != "" {
		out["everyday_tools"] = len(pops[len(pops)-1].cat.IDs)
	}
	for _, p := range pops {
		var missLog io.Writer
		if o.misses && !strings.HasPrefix(p.name, "task_") {
			missLog = os.Stderr
		}
		m, err := measure(r, p, missLog)
		if err != nil {
			return err
		}
		out[p.name] = m
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// build indexes every server of c in an index in memory that ranks with r,
// the way the CLI feeds its index: one Replace per server.
func build(c *benchdata.Catalog, r search.Ranking) (*search.Index, error) {
	ix, err := search.OpenMemWith(r)
	if err != nil {
		return nil, err
	}
	for _, s := range c.Servers {
		if err := ix.Replace(s.ID, s.Info, s.Tools); err != nil {
			ix.Close()
			return nil, err
		}
	}
	return ix, nil
}

// measure indexes p's catalog in an index that ranks with r and judges the
// queries of p. With misses set, it writes there each query with no gold
// tool in the top 5.
func measure(r search.Ranking, p population, misses io.Writer) (Metrics, error) {
	ix, err := build(p.cat, r)
	if err != nil {
		return Metrics{}, err
	}
	defer ix.Close()
	var m Metrics
	for _, q := range p.queries {
		hits, err := ix.Search(q.Query, search.Options{Limit: depth})
		if err != nil {
			return Metrics{}, fmt.Errorf("query %q: %w", q.Query, err)
		}
		ranked := make([]string, len(hits))
		for i, h := range hits {
			ranked[i] = h.Server + "." + h.Name
		}
		j := judge(ranked, q.GoldGroups)
		m.accumulate(j, len(q.GoldGroups))
		if misses != nil && j.hit(5) == 0 {
			top := ranked
			if len(top) > 5 {
				top = top[:5]
			}
			fmt.Fprintf(misses, "miss (%s): %q\n  gold: %v\n  top5: %s\n", p.name, q.Query, q.GoldGroups, strings.Join(top, " "))
		}
	}
	m.finish()
	return m, nil
}
