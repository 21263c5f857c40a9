package search

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/google/go-cmp/cmp"
)

func first(t *testing.T, ix *Index, q string) string {
	t.Helper()
	hits := mustSearch(t, ix, q, Options{Limit: 3})
	if len(hits) == 0 {
		return ""
	}
	return hits[0]
}

func TestRanking_Validate(t *testing.T) {
	bad := map[string]func(*Ranking){
		"no clauses":              func(r *Ranking) { r.Clauses = nil },
		"unknown field":           func(r *Ranking) { r.Clauses = []Clause{{Field: "nope", Weight: 1}} },
		"zero weight":             func(r *Ranking) { r.Clauses = []Clause{{Field: FieldTool}} },
		"b out of range":          func(r *Ranking) { r.Clauses = []Clause{{Field: FieldTool, Weight: 1, B: 2}} },
		"stem field, no stemmer":  func(r *Ranking) { r.Clauses = []Clause{{Field: FieldTool + StemSuffix, Weight: 1}} },
		"stem weight, no stemmer": func(r *Ranking) { r.StemWeight = 1 },
		"unknown stemmer":         func(r *Ranking) { r.Stemmer = "nope" },
		"pairs on the baseline": func(r *Ranking) {
			*r = Ranking{Baseline: true, Clauses: []Clause{{Field: FieldAll, Weight: 1}}, PairWeight: 1}
		},
		"feedback on the baseline": func(r *Ranking) {
			*r = Ranking{Baseline: true, Clauses: []Clause{{Field: FieldAll, Weight: 1}}}
			r.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .3}
		},
		"min runes out of range": func(r *Ranking) { r.MinRunes = -1 },
		"min runes too long":     func(r *Ranking) { r.MinRunes = maxWordRunes + 1 },
	}
	for name, edit := range bad {
		r := DefaultRanking()
		edit(&r)
		if ix, err := OpenMemWith(r); err == nil {
			ix.Close()
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRanking_Variants checks that every choice the ablation table varies
// builds an index that still ranks plain queries right.
func TestRanking_Variants(t *testing.T) {
	variants := map[string]func(*Ranking){
		"default":         func(*Ranking) {},
		"bleve scoring":   func(r *Ranking) { r.BleveScoring = true },
		"no camel split":  func(r *Ranking) { r.SplitCamel = false },
		"not catenated":   func(r *Ranking) { r.Catenate = false },
		"stop words kept": func(r *Ranking) { r.StopWords = false },
		"stems only": func(r *Ranking) {
			r.Stemmer, r.Clauses = "porter", []Clause{{Field: FieldTool + StemSuffix, Weight: 1}, {Field: FieldSrv + StemSuffix, Weight: .3}}
		},
		"stem twins": func(r *Ranking) { r.Stemmer, r.StemWeight = "porter", 1 },
		"stem all":   func(r *Ranking) { r.StemAll = .5 },
		"pairs":      func(r *Ranking) { r.PairWeight = 1 },
		"coord":      func(r *Ranking) { r.CoordBonus = 1 },
		"max df":     func(r *Ranking) { r.MaxDF = .5 },
		"feedback":   func(r *Ranking) { r.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .3, MinDocs: 1} },
		"feedback rm3": func(r *Ranking) {
			r.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .1, Mass: true, OnlyScored: true}
		},
		"k3":              func(r *Ranking) { r.K3 = 1 },
		"bm25+":           func(r *Ranking) { r.Delta = .5 },
		"prefixes":        func(r *Ranking) { r.Prefix = 1 },
		"server fusion":   func(r *Ranking) { r.ServerFusion = .3 },
		"server norm":     func(r *Ranking) { r.ServerNorm = true },
		"server doc desc": func(r *Ranking) { r.ServerDocDesc = true },
		"no server doc":   func(r *Ranking) { r.ServerWeight = 0 },
		"siblings":        func(r *Ranking) { r.Clauses = append(r.Clauses, Clause{Field: FieldSib, Weight: .3}) },
		"b per field": func(r *Ranking) {
			r.Clauses = []Clause{{Field: FieldName, Weight: 1, B: .3}, {Field: FieldDesc, Weight: 1}, {Field: FieldParams, Weight: .5, B: .9}}
		},
		"bridge": func(r *Ranking) { r.Bridge = Bridge{Things: [][]string{{"forecast", "outlook"}}, Weight: 1} },
		"bridge merged": func(r *Ranking) {
			r.Bridge = Bridge{Actions: [][]string{{"write", "save"}}, Weight: 1, Merged: true, TermWeight: .5, ActionsMissing: true}
		},
	}
	for name, edit := range variants {
		r := DefaultRanking()
		edit(&r)
		ix := memIndexWith(t, r)
		for q, want := range map[string]string{"write file": "files.write_file", "weather forecast": "weather.get-forecast"} {
			if got := first(t, ix, q); got != want {
				t.Errorf("%s: Search(%q) ranks %s first, want %s", name, q, got, want)
			}
		}
	}
}

// TestRanking_Baseline checks that plain BM25 with bleve's standard
// analyzer ranks: "write_file" is one word to it.
func TestRanking_Baseline(t *testing.T) {
	ix := memIndexWith(t, Ranking{Baseline: true, Clauses: []Clause{{Field: FieldAll, Weight: 1}}})
	if got := first(t, ix, "weather forecast"); got != "weather.get-forecast" {
		t.Errorf("baseline: Search(weather forecast) = %s", got)
	}
	if got := first(t, ix, "write_file"); got != "files.write_file" {
		t.Errorf("baseline: Search(write_file) = %s", got)
	}
}

// TestRanking_Bridge checks that the bridge's words count for a query word
// of their set, and only with the bridge on.
func TestRanking_Bridge(t *testing.T) {
	r := DefaultRanking()
	r.Bridge = Bridge{Actions: [][]string{{"save", "write"}}, Things: [][]string{{"outlook", "forecast"}}, Weight: 1}
	bridged, plain := memIndexWith(t, r), memIndex(t)
	for q, want := range map[string]string{"save": "files.write_file", "outlooks": "weather.get-forecast"} {
		if got := first(t, bridged, q); got != want {
			t.Errorf("with the bridge, Search(%q) = %s, want %s", q, got, want)
		}
		if got := first(t, plain, q); got == want {
			t.Errorf("without the bridge, Search(%q) = %s", q, got)
		}
	}
	r.Bridge.ActionsOnly = true
	if got := first(t, memIndexWith(t, r), "outlook"); got == "weather.get-forecast" {
		t.Errorf("actions only, yet a thing found %s", got)
	}
}

// TestRanking_Backoff checks the back-off's choices: without them, variants
// and misspellings of the tools' words find nothing.
func TestRanking_Backoff(t *testing.T) {
	none := DefaultRanking()
	none.StemBackoff, none.FuzzyBackoff = 0, 0
	noFuzzy := DefaultRanking()
	noFuzzy.FuzzyBackoff = 0
	ix, plain, stemOnly := memIndex(t), memIndexWith(t, none), memIndexWith(t, noFuzzy)
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
	if _, err := newWordTokenizer(map[string]interface{}{"min_runes": float64(0)}, nil); err == nil {
		t.Error("min_runes 0 accepted")
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
