package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
)

func tool(server, name, desc string, params ...string) catalog.Tool {
	props := make([]string, len(params))
	for i, p := range params {
		props[i] = fmt.Sprintf("%q:{\"type\":\"string\",\"description\":\"the %s\"}", p, p)
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	return catalog.Tool{Server: server, Name: name, Description: desc, InputSchema: []byte(schema)}
}

// fixture is a small catalog of three servers.
var fixture = map[string]struct {
	info  ServerInfo
	tools []catalog.Tool
}{
	"finance": {ServerInfo{"Finance", "Stock market data"}, []catalog.Tool{
		tool("finance", "get_current_stock_price", "Get the current stock price for a ticker symbol.", "symbol"),
		tool("finance", "get_dividends", "Get dividends paid for a ticker.", "symbol"),
		tool("finance", "getNews", "Latest news about a company.", "symbol"),
	}},
	"files": {ServerInfo{"Filesystem", "Read and write local files"}, []catalog.Tool{
		tool("files", "read_file", "Read the complete contents of a file.", "path"),
		tool("files", "write_file", "Create or overwrite a file with new content.", "path", "content"),
		tool("files", "list_directory", "List the entries of a directory.", "path"),
	}},
	"weather": {ServerInfo{"Weather", ""}, []catalog.Tool{
		tool("weather", "get-forecast", "Weather forecast for a city.", "city"),
		tool("weather", "get-alerts", "Severe weather alerts for a region.", "region"),
	}},
}

func feed(t *testing.T, ix *Index) {
	t.Helper()
	for s, f := range fixture {
		if err := ix.Replace(s, f.info, f.tools); err != nil {
			t.Fatal(err)
		}
	}
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Server + "." + h.Name
	}
	return out
}

func mustSearch(t *testing.T, ix *Index, q string, opt Options) []string {
	t.Helper()
	hits, err := ix.Search(q, opt)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return ids(hits)
}

func memIndex(t *testing.T) *Index {
	t.Helper()
	return memIndexWith(t, DefaultRanking())
}

// memIndexWith is an index in memory of the fixture that ranks with r.
func memIndexWith(t *testing.T, r Ranking) *Index {
	t.Helper()
	ix, err := OpenMemWith(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	feed(t, ix)
	return ix
}

func TestIndex_SearchRanking(t *testing.T) {
	ix := memIndex(t)
	tests := map[string]string{
		"stock price today":                       "finance.get_current_stock_price",
		"what is the current price of AAPL stock": "finance.get_current_stock_price",
		"write file":                              "files.write_file",
		"save the report into a new file":         "files.write_file",
		"list directory":                          "files.list_directory",
		"weather forecast for Oslo":               "weather.get-forecast",
		"forecast":                                "weather.get-forecast",
		"news":                                    "finance.getNews",
		"get news":                                "finance.getNews",
		"dividends":                               "finance.get_dividends",
		"severe alerts":                           "weather.get-alerts",
		"finance.get_dividends":                   "finance.get_dividends",
	}
	for q, want := range tests {
		got := mustSearch(t, ix, q, Options{Limit: 3})
		if len(got) == 0 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
	}
}

func TestIndex_SearchStableOrder(t *testing.T) {
	ix, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var tools []catalog.Tool
	for i := 0; i < 20; i++ {
		tools = append(tools, tool("same", fmt.Sprintf("tool%02d", 19-i), "identical text"))
	}
	if err := ix.Replace("same", ServerInfo{}, tools); err != nil {
		t.Fatal(err)
	}
	got := mustSearch(t, ix, "identical", Options{Limit: 20})
	if len(got) != 20 {
		t.Fatalf("got %d hits", len(got))
	}
	for i, id := range got {
		if want := fmt.Sprintf("same.tool%02d", i); id != want {
			t.Fatalf("hit %d = %s, want %s (equal scores must sort by id)", i, id, want)
		}
	}
}

func TestIndex_SearchFilters(t *testing.T) {
	ix := memIndex(t)
	allowed := map[string]bool{"files.read_file": true, "weather.get-alerts": true}
	only := func(server, tool string) bool { return allowed[server+"."+tool] }
	for _, q := range []string{"file", "write file", "weather", "stock", "get", "the a of", ""} {
		for _, id := range mustSearch(t, ix, q, Options{Limit: 50, Only: only}) {
			if !allowed[id] {
				t.Errorf("Search(%q) returned unauthorized %s", q, id)
			}
		}
		for _, id := range mustSearch(t, ix, q, Options{Limit: 50, Server: "files"}) {
			if !strings.HasPrefix(id, "files.") {
				t.Errorf("Search(%q, Server: files) returned %s", q, id)
			}
		}
	}
	// A narrow filter still fills the page: the one allowed tool that
	// matches is found although many better ones are filtered out.
	got := mustSearch(t, ix, "file", Options{Limit: 1, Only: only})
	if len(got) != 1 || got[0] != "files.read_file" {
		t.Errorf("filtered search = %v", got)
	}
	if _, err := ix.Search("x", Options{Limit: -1}); err == nil {
		t.Error("negative limit accepted")
	}
}

func TestIndex_SearchOddQueries(t *testing.T) {
	ix := memIndex(t)
	queries := []string{
		"", "   ", "\x00\xff\xfe", "a", "the and of", "*", "?", "fi*le", `"unterminated`, "field:value",
		"+stock -price", "(((((", "/", strings.Repeat("stock ", 10000), strings.Repeat("x", 1<<20),
		"data:image/png;base64," + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", 50),
		"天气预报", "🙂 weather 🙂", "ｗｅａｔｈｅｒ", "WEATHER", "stock~2", "stock^10",
	}
	for _, q := range queries {
		start := time.Now()
		hits, err := ix.Search(q, Options{})
		if err != nil {
			t.Errorf("Search(%.40q): %v", q, err)
		}
		if len(hits) > DefaultLimit {
			t.Errorf("Search(%.40q) gave %d hits", q, len(hits))
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Search(%.40q) took %v", q, d)
		}
	}
	if got := mustSearch(t, ix, "WEATHER", Options{}); len(got) == 0 || !strings.HasPrefix(got[0], "weather.") {
		t.Errorf("case not folded: %v", got)
	}
}

func TestIndex_ReplaceIsIncremental(t *testing.T) {
	ix := memIndex(t)
	before := ix.Servers()
	if len(before) != 3 {
		t.Fatalf("Servers() = %v", before)
	}
	// finance loses two tools, gains one, and keeps one with a new text.
	next := []catalog.Tool{
		tool("finance", "get_current_stock_price", "Quote for a ticker.", "symbol"),
		tool("finance", "get_cashflow", "Cash flow statement.", "symbol"),
	}
	if err := ix.Replace("finance", ServerInfo{"Finance", "Stock market data"}, next); err != nil {
		t.Fatal(err)
	}
	after := ix.Servers()
	if after["finance"] == before["finance"] || after["finance"] != Fingerprint(ServerInfo{"Finance", "Stock market data"}, next) {
		t.Error("finance fingerprint not updated")
	}
	if after["files"] != before["files"] || after["weather"] != before["weather"] {
		t.Error("other servers' fingerprints changed")
	}
	if got := mustSearch(t, ix, "dividends news", Options{}); len(got) != 0 {
		t.Errorf("removed tools still found: %v", got)
	}
	if got := mustSearch(t, ix, "cash flow", Options{}); len(got) == 0 || got[0] != "finance.get_cashflow" {
		t.Errorf("new tool not found: %v", got)
	}
	if got := mustSearch(t, ix, "quote", Options{}); len(got) == 0 || got[0] != "finance.get_current_stock_price" {
		t.Errorf("changed tool not reindexed: %v", got)
	}
	if got := mustSearch(t, ix, "read file", Options{}); len(got) == 0 || got[0] != "files.read_file" {
		t.Errorf("other server lost: %v", got)
	}

	if err := ix.RemoveServer("files"); err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Servers()["files"]; ok {
		t.Error("removed server still listed")
	}
	for _, id := range mustSearch(t, ix, "file directory read write", Options{Limit: 50}) {
		if strings.HasPrefix(id, "files.") {
			t.Errorf("removed server's tool found: %s", id)
		}
	}
}

func TestIndex_ReplaceRejects(t *testing.T) {
	ix := memIndex(t)
	bad := []struct {
		server string
		tools  []catalog.Tool
	}{
		{"bad.server", nil},
		{"", nil},
		{strings.Repeat("x", 65), nil},
		{"files", []catalog.Tool{tool("other", "x", "")}},
		{"files", []catalog.Tool{tool("files", "has space", "")}},
		{"files", []catalog.Tool{tool("files", "", "")}},
	}
	for _, b := range bad {
		if err := ix.Replace(b.server, ServerInfo{}, b.tools); err == nil {
			t.Errorf("Replace(%q, %v) accepted", b.server, b.tools)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a := fixture["files"].tools
	b := []catalog.Tool{a[2], a[0], a[1]}
	if Fingerprint(ServerInfo{}, a) != Fingerprint(ServerInfo{}, b) {
		t.Error("fingerprint depends on tool order")
	}
	if Fingerprint(ServerInfo{}, a) == Fingerprint(ServerInfo{Title: "x"}, a) {
		t.Error("fingerprint ignores server info")
	}
	c := append([]catalog.Tool(nil), a...)
	c[0].Description += "!"
	if Fingerprint(ServerInfo{}, a) == Fingerprint(ServerInfo{}, c) {
		t.Error("fingerprint ignores descriptions")
	}
}

func TestOpen_PersistenceRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Rebuilt() {
		t.Error("new index reported as rebuilt")
	}
	feed(t, ix)
	want := mustSearch(t, ix, "stock price", Options{})
	servers := ix.Servers()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustSearch(t, ro, "stock price", Options{}); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after reopen: %v, want %v", got, want)
	}
	if got := ro.Servers(); len(got) != 3 || got["files"] != servers["files"] {
		t.Errorf("Servers() after reopen = %v", got)
	}
	if err := ro.Replace("files", ServerInfo{}, nil); err == nil {
		t.Error("read-only index accepted a write")
	}
	ro.Close()

	ix, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Rebuilt() || len(ix.Servers()) != 3 {
		t.Errorf("reopen for writing: rebuilt=%v servers=%v", ix.Rebuilt(), ix.Servers())
	}
}

func TestOpenReadOnly_Missing(t *testing.T) {
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrStale) {
		t.Errorf("err = %v, want ErrStale", err)
	}
}

func TestOpen_RebuildsCorrupt(t *testing.T) {
	corruptions := map[string]func(t *testing.T, dir string){
		"garbage store": func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "store", "root.bolt"), []byte("not a bolt file"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"garbage meta": func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"meta missing": func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "index_meta.json")); err != nil {
				t.Fatal(err)
			}
		},
		"other version": func(t *testing.T, dir string) {
			ix, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.bi.SetInternal(keyVersion, []byte("mcp-search-0")); err != nil {
				t.Fatal(err)
			}
			ix.Close()
		},
	}
	for name, corrupt := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			keep := filepath.Join(dir, "unrelated.txt")
			if err := os.WriteFile(keep, []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, ix)
			ix.Close()
			corrupt(t, dir)

			if _, err := OpenReadOnly(dir); !errors.Is(err, ErrStale) {
				t.Errorf("OpenReadOnly: err = %v, want ErrStale", err)
			}
			ix, err = Open(dir)
			if err != nil {
				t.Fatalf("Open after corruption: %v", err)
			}
			defer ix.Close()
			if !ix.Rebuilt() {
				t.Error("Rebuilt() = false")
			}
			if len(ix.Servers()) != 0 || len(mustSearch(t, ix, "file", Options{})) != 0 {
				t.Error("rebuilt index is not empty")
			}
			feed(t, ix)
			if got := mustSearch(t, ix, "write file", Options{}); len(got) == 0 || got[0] != "files.write_file" {
				t.Errorf("rebuilt index does not work: %v", got)
			}
			if _, err := os.Stat(keep); err != nil {
				t.Errorf("rebuild removed an unrelated file: %v", err)
			}
		})
	}
}

func TestOpen_SecondOpenerDoesNotHang(t *testing.T) {
	old := LockWait
	LockWait = 200 * time.Millisecond
	defer func() { LockWait = old }()

	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	feed(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// Readers share the index.
	r1, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	mustSearch(t, r2, "file", Options{})
	r2.Close()

	// A writer waits for readers only as long as LockWait.
	start := time.Now()
	if _, err := Open(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("Open while read: err = %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open waited %v", d)
	}
	r1.Close()

	// A reader, and a second writer, wait for a writer only as long.
	w, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Rebuilt() {
		t.Fatal("lock contention must not rebuild the index")
	}
	for name, open := range map[string]func(string) (*Index, error){"OpenReadOnly": OpenReadOnly, "Open": Open} {
		done := make(chan error, 1)
		go func() {
			ix, err := open(dir)
			if err == nil {
				ix.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrLocked) {
				t.Errorf("%s while written: err = %v, want ErrLocked", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s hangs while another opener holds the index", name)
		}
	}
	if len(w.Servers()) != 3 {
		t.Error("writer's index damaged by a refused opener")
	}
}

func TestIndex_ReplaceTwiceBeforeFlush(t *testing.T) {
	ix, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	v1 := []catalog.Tool{tool("s", "old_tool", "legacy thing")}
	v2 := []catalog.Tool{tool("s", "new_tool", "modern thing")}
	if err := ix.Replace("s", ServerInfo{}, v1); err != nil {
		t.Fatal(err)
	}
	if err := ix.Replace("s", ServerInfo{}, v2); err != nil {
		t.Fatal(err)
	}
	if got := mustSearch(t, ix, "thing legacy modern", Options{}); strings.Join(got, " ") != "s.new_tool" {
		t.Errorf("got %v, want only s.new_tool", got)
	}
}

func TestIndex_ConcurrentUse(t *testing.T) {
	ix := memIndex(t)
	done := make(chan error, 8)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 20; i++ {
				if _, err := ix.Search("file stock weather", Options{}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		go func(g int) {
			for i := 0; i < 5; i++ {
				srv := fmt.Sprintf("extra%d", g)
				if err := ix.Replace(srv, ServerInfo{}, []catalog.Tool{tool(srv, fmt.Sprintf("t%d", i), "file helper")}); err != nil {
					done <- err
					return
				}
				_ = ix.Servers()
			}
			done <- nil
		}(g)
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := len(ix.Servers()); n != 7 {
		t.Errorf("%d servers, want 7", n)
	}
}
