package lab

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/search"
)

func tool(server, name, desc string, params ...string) catalog.Tool {
	props := make([]string, len(params))
	for i, p := range params {
		props[i] = fmt.Sprintf("%q:{\"type\":\"string\",\"description\":\"the %s\"}", p, p)
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	return catalog.Tool{Server: server, Name: name, Description: desc, InputSchema: []byte(schema)}
}

// fixture is a small catalog of three servers (search's test catalog).
var fixture = map[string]struct {
	info  search.ServerInfo
	tools []catalog.Tool
}{
	"finance": {search.ServerInfo{Title: "Finance", Description: "Stock market data"}, []catalog.Tool{
		tool("finance", "get_current_stock_price", "Get the current stock price for a ticker symbol.", "symbol"),
		tool("finance", "get_dividends", "Get dividends paid for a ticker.", "symbol"),
		tool("finance", "getNews", "Latest news about a company.", "symbol"),
	}},
	"files": {search.ServerInfo{Title: "Filesystem", Description: "Read and write local files"}, []catalog.Tool{
		tool("files", "read_file", "Read the complete contents of a file.", "path"),
		tool("files", "write_file", "Create or overwrite a file with new content.", "path", "content"),
		tool("files", "list_directory", "List the entries of a directory.", "path"),
	}},
	"weather": {search.ServerInfo{Title: "Weather"}, []catalog.Tool{
		tool("weather", "get-forecast", "Weather forecast for a city.", "city"),
		tool("weather", "get-alerts", "Severe weather alerts for a region.", "region"),
	}},
}

// open returns a lab index built with t over the fixture.
func open(t *testing.T, tu Tuning) *Index {
	t.Helper()
	ix, err := Open(tu)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	for s, f := range fixture {
		if err := ix.Replace(s, f.info, f.tools); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func first(t *testing.T, ix *Index, q string) string {
	t.Helper()
	hits, err := ix.Search(q, search.Options{Limit: 3})
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Server + "." + hits[0].Name
}

func TestTuning_Validate(t *testing.T) {
	bad := map[string]func(*Tuning){
		"no clauses":              func(t *Tuning) { t.Clauses = nil },
		"unknown field":           func(t *Tuning) { t.Clauses = []Clause{{Field: "nope", Weight: 1}} },
		"zero weight":             func(t *Tuning) { t.Clauses = []Clause{{Field: fieldTool}} },
		"b out of range":          func(t *Tuning) { t.Clauses = []Clause{{Field: fieldTool, Weight: 1, B: 2}} },
		"stem field, no stemmer":  func(t *Tuning) { t.Clauses = []Clause{{Field: "tool_st", Weight: 1}} },
		"stem weight, no stemmer": func(t *Tuning) { t.StemWeight = 1 },
		"unknown stemmer":         func(t *Tuning) { t.Stemmer = "nope" },
		"pairs on the baseline":   func(t *Tuning) { *t = Baseline(); t.PairWeight = 1 },
		"feedback on the baseline": func(t *Tuning) {
			*t = Baseline()
			t.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .3}
		},
		"min runes out of range": func(t *Tuning) { t.MinRunes = 0 },
	}
	for name, edit := range bad {
		tu := Default()
		edit(&tu)
		if ix, err := Open(tu); err == nil {
			ix.Close()
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestTuning_Variants checks that every option the ablation table measures
// builds an index that still ranks plain queries right.
func TestTuning_Variants(t *testing.T) {
	variants := map[string]func(*Tuning){
		"default":         func(*Tuning) {},
		"bleve scoring":   func(t *Tuning) { t.BleveScoring = true },
		"no camel split":  func(t *Tuning) { t.SplitCamel = false },
		"not catenated":   func(t *Tuning) { t.Catenate = false },
		"stop words kept": func(t *Tuning) { t.StopWords = false },
		"stems only": func(t *Tuning) {
			t.Stemmer, t.Clauses = "porter", []Clause{{Field: "tool_st", Weight: 1}, {Field: "srv_st", Weight: .3}}
		},
		"stem twins": func(t *Tuning) { t.Stemmer, t.StemWeight = "porter", 1 },
		"pairs":      func(t *Tuning) { t.PairWeight = 1 },
		"coord":      func(t *Tuning) { t.CoordBonus = 1 },
		"max df":     func(t *Tuning) { t.MaxDF = .5 },
		"feedback":   func(t *Tuning) { t.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .3, MinDocs: 1} },
		"feedback rm3": func(t *Tuning) {
			t.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .1, Mass: true, OnlyScored: true}
		},
		"k3":              func(t *Tuning) { t.K3 = 1 },
		"bm25+":           func(t *Tuning) { t.Delta = .5 },
		"server fusion":   func(t *Tuning) { t.ServerFusion = .3 },
		"server norm":     func(t *Tuning) { t.ServerNorm = true },
		"server doc desc": func(t *Tuning) { t.ServerDocDesc = true },
		"siblings":        func(t *Tuning) { t.Clauses = append(t.Clauses, Clause{Field: fieldSib, Weight: .3}) },
		"b per field": func(t *Tuning) {
			t.Clauses = []Clause{{Field: fieldName, Weight: 1, B: .3}, {Field: fieldDesc, Weight: 1}, {Field: fieldParams, Weight: .5, B: .9}}
		},
	}
	for name, edit := range variants {
		tu := Default()
		edit(&tu)
		ix := open(t, tu)
		for q, want := range map[string]string{"write file": "files.write_file", "weather forecasts": "weather.get-forecast"} {
			if got := first(t, ix, q); got != want {
				t.Errorf("%s: Search(%q) ranks %s first, want %s", name, q, got, want)
			}
		}
	}
}

// TestTuning_Backoff checks the back-off knobs: without them, variants and
// misspellings of the tools' words find nothing.
func TestTuning_Backoff(t *testing.T) {
	none := Default()
	none.StemBackoff, none.FuzzyBackoff = 0, 0
	noFuzzy := Default()
	noFuzzy.FuzzyBackoff = 0
	ix, plain, stemOnly := open(t, Default()), open(t, none), open(t, noFuzzy)
	for q, want := range map[string]string{"forecasting": "weather.get-forecast", "dividnds": "finance.get_dividends"} {
		if got := first(t, ix, q); got != want {
			t.Errorf("Search(%q) = %s, want %s", q, got, want)
		}
		if got := first(t, plain, q); got == want {
			t.Errorf("Search(%q) without back-off = %s", q, got)
		}
	}
	if got := first(t, stemOnly, "forecasting"); got != "weather.get-forecast" {
		t.Errorf("stem back-off alone: %s", got)
	}
	if got := first(t, stemOnly, "dividnds"); got == "finance.get_dividends" {
		t.Errorf("fuzzy back-off off, yet a misspelling found %s", got)
	}
}

func TestWordTokenizer_Options(t *testing.T) {
	tests := []struct {
		config map[string]interface{}
		want   []string
	}{
		{map[string]interface{}{}, []string{"get", "http", "response", "gethttpresponse"}},
		{map[string]interface{}{"split_camel": false}, []string{"gethttpresponse"}},
		{map[string]interface{}{"catenate": false}, []string{"get", "http", "response"}},
		{map[string]interface{}{"min_runes": float64(1)}, []string{"get", "http", "response", "gethttpresponse", "x"}},
	}
	for _, tt := range tests {
		tok, err := newWordTokenizer(tt.config, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tk := range tok.Tokenize([]byte("getHTTPResponse x")) {
			got = append(got, string(tk.Term))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.config, diff)
		}
	}
}

func TestPairFilter(t *testing.T) {
	tok, err := newWordTokenizer(map[string]interface{}{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range (pairFilter{}).Filter(tok.Tokenize([]byte("getHTTPResponse fast"))) {
		got = append(got, string(tk.Term))
	}
	want := []string{"get http", "http response", "response fast"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}
	if out := (pairFilter{}).Filter(analysis.TokenStream{}); len(out) != 0 {
		t.Errorf("pairs of nothing: %v", out)
	}
}
