package search

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpsh/mcp/catalog"
)

// fixtureSource is the fixture as a Source: every tool authorized, each
// server's list known.
type fixtureSource struct{ s *catalog.Surface }

func newFixtureSource() fixtureSource {
	s := &catalog.Surface{Mode: catalog.ModeCLI}
	for _, id := range []string{"files", "finance", "weather"} {
		s.Servers = append(s.Servers, &catalog.ServerSurface{ID: id, All: true})
	}
	return fixtureSource{s}
}

func (f fixtureSource) Surface() *catalog.Surface { return f.s }

func (f fixtureSource) Known(_ context.Context, server string) ([]catalog.Tool, error) {
	return fixture[server].tools, nil
}

func (f fixtureSource) EndpointKey(server string) (string, bool) { return "test:" + server, true }

// fixtureRanked is what an index in memory that ranks with r answers for
// each query, fed as Run feeds its index (no server info).
func fixtureRanked(t *testing.T, r Ranking, queries []string) [][]string {
	t.Helper()
	ix, err := OpenMemWith(r)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for s, f := range fixture {
		if err := ix.Replace(s, ServerInfo{}, f.tools); err != nil {
			t.Fatal(err)
		}
	}
	out := make([][]string, len(queries))
	for i, q := range queries {
		out[i] = mustSearch(t, ix, q, Options{})
	}
	return out
}

// TestRun_ranksWithDefaultRanking checks that `mcp search` (Run, on the
// index persisted in the cache directory) and `mcp serve` (OpenMem) rank
// with DefaultRanking, the value whose figures the benchmark's default row
// reports, and that another value would answer otherwise.
func TestRun_ranksWithDefaultRanking(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("LocalAppData", cache)
	queries := []string{"write file", "weahter forcast", "stock price", "dividend", "files", "get news", "read"}
	src := newFixtureSource()
	var got [][]string
	for _, q := range queries {
		ans, err := Run(context.Background(), src, Request{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range ans.Tools {
			names = append(names, tl.ID())
		}
		got = append(got, names)
	}
	if diff := cmp.Diff(fixtureRanked(t, DefaultRanking(), queries), got); diff != "" {
		t.Errorf("Run does not rank as DefaultRanking does (-default +Run):\n%s", diff)
	}
	other := DefaultRanking()
	other.FuzzyBackoff, other.ServerWeight = 0, 0
	if cmp.Equal(fixtureRanked(t, other, queries), got) {
		t.Error("the queries do not tell another ranking from the default")
	}

	ix, err := openIndex(surfaceKey(src.s, src))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Rebuilt() {
		t.Error("Run's index was rebuilt when opened again")
	}
	mem, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	for name, r := range map[string]Ranking{"persisted": ix.Ranking(), "in memory": mem.Ranking()} {
		if diff := cmp.Diff(DefaultRanking(), r); diff != "" {
			t.Errorf("%s index: not DefaultRanking (-default +index):\n%s", name, diff)
		}
	}
}
