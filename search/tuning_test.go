package search

import "testing"

func TestTuning_Validate(t *testing.T) {
	bad := map[string]func(*Tuning){
		"no clauses":              func(t *Tuning) { t.Clauses = nil },
		"unknown field":           func(t *Tuning) { t.Clauses = []Clause{{Field: "nope", Weight: 1}} },
		"zero weight":             func(t *Tuning) { t.Clauses = []Clause{{Field: fieldTool}} },
		"b out of range":          func(t *Tuning) { t.Clauses = []Clause{{Field: fieldTool, Weight: 1, B: 2}} },
		"stem field, no stemmer":  func(t *Tuning) { t.Clauses = []Clause{{Field: "tool_st", Weight: 1}} },
		"stem weight, no stemmer": func(t *Tuning) { t.StemWeight = 1 },
		"unknown stemmer":         func(t *Tuning) { t.Stemmer = "nope" },
		"pairs on the baseline":   func(t *Tuning) { *t = BaselineTuning(); t.PairWeight = 1 },
		"feedback on the baseline": func(t *Tuning) {
			*t = BaselineTuning()
			t.Feedback = Feedback{Docs: 3, Terms: 5, Weight: .3}
		},
	}
	for name, edit := range bad {
		tu := DefaultTuning()
		edit(&tu)
		if ix, err := OpenMemTuned(tu); err == nil {
			ix.Close()
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestTuning_Variants checks that every scoring option the quality harness
// measures builds an index that still ranks plain queries right.
func TestTuning_Variants(t *testing.T) {
	variants := map[string]func(*Tuning){
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
		tu := DefaultTuning()
		edit(&tu)
		ix, err := OpenMemTuned(tu)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		feed(t, ix)
		for q, want := range map[string]string{"write file": "files.write_file", "weather forecasts": "weather.get-forecast"} {
			if got := mustSearch(t, ix, q, Options{Limit: 3}); len(got) == 0 || got[0] != want {
				t.Errorf("%s: Search(%q) = %v, want %s first", name, q, got, want)
			}
		}
		ix.Close()
	}
}
