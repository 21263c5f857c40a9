package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
	"github.com/mcpsh/mcp/search"
)

func TestJudged(t *testing.T) {
	groups := [][]string{{"a.x", "b.x"}, {"a.y"}}
	j := judge([]string{"c.z", "b.x", "a.x", "a.y"}, groups)
	if j.hit(1) != 0 || j.hit(2) != 1 {
		t.Errorf("hit: %v %v", j.hit(1), j.hit(2))
	}
	if j.rr() != 0.5 {
		t.Errorf("rr = %v", j.rr())
	}
	if got := j.recall(3, 2); got != 0.5 {
		t.Errorf("recall@3 = %v", got)
	}
	if got := j.recall(4, 2); got != 1 {
		t.Errorf("recall@4 = %v", got)
	}
	// Gains at ranks 2 and 4 (a.x at 3 repeats group 0); ideal at ranks 1, 2.
	want := (1/math.Log2(3) + 1/math.Log2(5)) / (1 + 1/math.Log2(3))
	if got := j.ndcg(10, 2); math.Abs(got-want) > 1e-9 {
		t.Errorf("ndcg = %v, want %v", got, want)
	}
	if judge(nil, groups).rr() != 0 {
		t.Error("empty ranking has a reciprocal rank")
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	cat := writeFile(t, "c.jsonl", strings.Join([]string{
		`{"id": "fin.get_stock_price", "server": "fin", "name": "get_stock_price", "description": "Current stock price", "inputSchema": {"type":"object","properties":{"symbol":{"type":"string"}}}}`,
		`{"id": "fs.write_file", "server": "fs", "name": "write_file", "description": "Write a file"}`,
		`{"id": "fs.read_file", "server": "fs", "name": "read_file", "description": "Read a file"}`,
	}, "\n"))
	qs := writeFile(t, "q.jsonl", `{"query": "what is the stock price of ACME", "gold_groups": [["fin.get_stock_price"]]}
{"query": "save notes to a file", "gold_groups": [["fs.write_file"]]}
`)
	for _, baseline := range []bool{false, true} {
		var out bytes.Buffer
		if err := run(&out, cat, qs, qs, options{baseline: baseline, halves: true}); err != nil {
			t.Fatal(err)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		var m Metrics
		if err := json.Unmarshal(res["task"], &m); err != nil {
			t.Fatal(err)
		}
		if m.Queries != 2 || m.Hit10 != 1 || m.MRR <= 0.5 {
			t.Errorf("baseline=%v: metrics %+v", baseline, m)
		}
		for _, p := range []string{"keyword", "keyword_typo", "task_even", "task_odd"} {
			if _, ok := res[p]; !ok {
				t.Errorf("population %s missing", p)
			}
		}
	}
	lists := t.TempDir()
	if err := os.Mkdir(filepath.Join(lists, "web"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lists, "web", benchdata.ToolListFile), []byte(`{"tools": [{"name": "browser_navigate", "description": "Navigate to a URL"}, {"name": "browser_close", "description": "Close the page"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := writeFile(t, "e.jsonl", `{"query": "navigate to a url", "gold_groups": [["web.browser_navigate"]]}`)
	var out bytes.Buffer
	if err := run(&out, cat, qs, "", options{everyday: ev, lists: lists}); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Everyday      Metrics `json:"everyday"`
		EverydayTools int     `json:"everyday_tools"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Everyday.Queries != 1 || res.Everyday.Hit1 != 1 || res.EverydayTools != 2 {
		t.Errorf("everyday: %+v", res)
	}
	var table bytes.Buffer
	if err := run(&table, cat, qs, "", options{ablation: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(table.String(), "\n"); n != len(variants)+2 {
		t.Errorf("ablation table has %d lines:\n%s", n, table.String())
	}
	table.Reset()
	if err := run(&table, cat, qs, "", options{ablation: true, only: "bm25+"}); err != nil {
		t.Fatal(err)
	}
	var want int
	for _, v := range variants {
		if strings.Contains(v.name, "bm25+") {
			want++
		}
	}
	if n := strings.Count(table.String(), "\n"); want == 0 || n != want+3 || !strings.Contains(table.String(), "| default") {
		t.Errorf("--only bm25+: table has %d lines, want %d rows and the default:\n%s", n, want, table.String())
	}
}

func TestTypo(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"weather forecast", "weather forceast", true}, // the longest word, first of equals
		{"stock price today", "sotck price today", true},
		{"get mp3", "get mp3", false},      // no word of five letters
		{"base64 x", "base64 x", false},    // not letters only
		{"coffee", "coffee", false},        // swapping "ff" changes nothing
		{"Übergrößen", "Überrgößen", true}, // letters, not bytes
	}
	for _, tt := range tests {
		got, ok := typo(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("typo(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	qs := []benchdata.Query{{Query: "get mp3"}, {Query: "weather"}}
	if got := typos(qs); len(got) != 1 || got[0].Query != "wetaher" || qs[1].Query != "weather" {
		t.Errorf("typos = %v (input now %v)", got, qs)
	}
	even, odd := halves([]benchdata.Query{{Query: "a"}, {Query: "b"}, {Query: "c"}})
	if len(even) != 2 || len(odd) != 1 || odd[0].Query != "b" {
		t.Errorf("halves = %v, %v", even, odd)
	}
}

// TestKeywordQueries checks that the keyword query file is well formed and,
// when the benchmark catalog is present next to the repository, that every
// gold tool is in it.
func TestKeywordQueries(t *testing.T) {
	data, err := os.ReadFile("keyword_queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 30 {
		t.Errorf("%d keyword queries, want 30 or more", len(lines))
	}
	for _, l := range lines {
		var q benchdata.Query
		if err := json.Unmarshal([]byte(l), &q); err != nil || q.Query == "" || len(q.GoldGroups) == 0 {
			t.Errorf("bad line %q: %v", l, err)
		}
	}
	c, err := benchdata.LoadCatalog(filepath.Join("..", "data", "livemcpbench", "catalog.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := benchdata.LoadQueries("keyword_queries.jsonl", c); err != nil {
		t.Error(err)
	}
	if _, err := benchdata.LoadQueries(filepath.Join("..", "data", "livemcpbench", "queries.jsonl"), c); err != nil {
		t.Error(err)
	}
}

// TestEverydayQueries checks that the everyday phrases are well formed and
// that every gold tool is in the pinned tool lists.
func TestEverydayQueries(t *testing.T) {
	c, err := benchdata.LoadToolLists(filepath.Join("..", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servers) < 10 {
		t.Errorf("%d pinned tool lists, want 10 or more", len(c.Servers))
	}
	qs, err := benchdata.LoadQueries("everyday_queries.jsonl", c)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 60 {
		t.Errorf("%d everyday phrases, want 60 or more", len(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if q.Query == "" || len(q.GoldGroups) == 0 || seen[q.Query] {
			t.Errorf("bad or repeated phrase %+v", q)
		}
		seen[q.Query] = true
	}
}

// TestVariants checks that the default row measures what mcp search ranks
// with (search.DefaultRanking; search's tests check that mcp search ranks
// with it), and that every other row changes it and builds an index.
func TestVariants(t *testing.T) {
	seen := map[string]bool{}
	defaults := 0
	for _, v := range variants {
		if seen[v.name] {
			t.Errorf("row %q twice", v.name)
		}
		seen[v.name] = true
		r := v.ranking()
		if same := cmp.Equal(r, search.DefaultRanking()); same != (v.name == defaultRow) {
			t.Errorf("row %q: ranks as the default: %v", v.name, same)
		}
		if v.name == defaultRow {
			defaults++
		}
		ix, err := search.OpenMemWith(r)
		if err != nil {
			t.Errorf("row %q: %v", v.name, err)
			continue
		}
		ix.Close()
	}
	if defaults != 1 {
		t.Errorf("%d default rows", defaults)
	}
}
