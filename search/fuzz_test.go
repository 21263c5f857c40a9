package search

import (
	"sort"
	"strings"
	"testing"
)

func FuzzSearch(f *testing.F) {
	for _, s := range []string{
		"", "stock price", "write_file", "getNews", "天气", "\xff\x00", "a'b's", "*?~^:\"()",
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", strings.Repeat("get ", 200),
		"weahter forcast pricing", "Überprüfüng größen",
	} {
		f.Add(s, 5)
	}
	ix, err := OpenMem()
	if err != nil {
		f.Fatal(err)
	}
	defer ix.Close()
	known := map[string]bool{}
	for s, fx := range fixture {
		if err := ix.Replace(s, fx.info, fx.tools); err != nil {
			f.Fatal(err)
		}
		for _, t := range fx.tools {
			known[t.ID()] = true
		}
	}
	f.Fuzz(func(t *testing.T, q string, limit int) {
		limit %= 50
		hits, err := ix.Search(q, Options{Limit: limit, Only: func(s, n string) bool { return s != "weather" }})
		if limit < 0 {
			if err == nil {
				t.Fatal("negative limit accepted")
			}
			return
		}
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		if limit == 0 {
			limit = DefaultLimit
		}
		if len(hits) > limit {
			t.Fatalf("%d hits for limit %d", len(hits), limit)
		}
		for _, h := range hits {
			if !known[h.Server+"."+h.Name] || h.Server == "weather" {
				t.Fatalf("hit %s.%s is not an allowed indexed tool", h.Server, h.Name)
			}
		}
		if !sort.SliceIsSorted(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score }) {
			t.Fatalf("hits not sorted: %v", hits)
		}
	})
}
