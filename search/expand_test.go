package search

import (
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

// wordsIndex is an index of the tools given, one server each.
func wordsIndex(t *testing.T, tools ...catalog.Tool) *Index {
	t.Helper()
	ix, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	by := map[string][]catalog.Tool{}
	for _, tl := range tools {
		by[tl.Server] = append(by[tl.Server], tl)
	}
	for s, ts := range by {
		if err := ix.Replace(s, ServerInfo{}, ts); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// TestIndex_SearchCompounds checks that adjacent query words count as the
// word they make when joined: "screen shot" finds a screenshot tool, ahead
// of a tool that has one of the two words.
func TestIndex_SearchCompounds(t *testing.T) {
	ix := wordsIndex(t,
		tool("browser", "take_screenshot", "Take a screenshot of the current page.", "filename"),
		tool("browser", "share_screen", "Share the screen with a viewer.", "viewer"),
		tool("browser", "shot_clock", "Show a shot clock for a game.", "seconds"),
	)
	for q, want := range map[string]string{
		"screen shot":                   "browser.take_screenshot",
		"take a screen shot of my page": "browser.take_screenshot",
	} {
		if got := mustSearch(t, ix, q, Options{Limit: 3}); len(got) == 0 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
	}
}

// TestIndex_SearchExactNameFirst checks that a query that is a tool's name
// (in its own spelling or in words) ranks that tool first, even when
// another tool says the query's words more often.
func TestIndex_SearchExactNameFirst(t *testing.T) {
	ix := wordsIndex(t,
		tool("mastra", "searchMastraDocs", "Look through the documentation.", "query"),
		tool("mastra", "mastraBlog", "Search Mastra docs and blog: search the Mastra docs, blog and docs examples.", "query"),
		tool("eslint", "lint-files", "Check source code for problems.", "paths"),
		tool("eslint", "fix_lint_files", "Lint files, lint files again and fix the lint files found.", "paths"),
	)
	for q, want := range map[string]string{
		"search mastra docs": "mastra.searchMastraDocs",
		"searchMastraDocs":   "mastra.searchMastraDocs",
		"lint files":         "eslint.lint-files",
		"eslint lint-files":  "eslint.lint-files",
	} {
		if got := mustSearch(t, ix, q, Options{Limit: 3}); len(got) == 0 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
	}
	// A query that only begins like a name is ranked by its words alone.
	if got := mustSearch(t, ix, "lint", Options{Limit: 3}); len(got) == 0 || got[0] != "eslint.fix_lint_files" {
		t.Errorf("Search(lint) = %v, want eslint.fix_lint_files first", got)
	}
}
