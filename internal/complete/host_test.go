package complete

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// hostRecipe is a recipe in a home of its own whose server "big" was
// listed with n tools (tool0000 ...) by a connection such as mcp list's,
// and never starts: its command would leave marker. trusted records the
// recipe in the trust store first, as mcp trust does.
func hostRecipe(tb testing.TB, n int, trusted bool) (root, marker string) {
	tb.Helper()
	home := tb.TempDir()
	for _, v := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		tb.Setenv(v, filepath.Join(home, v))
	}
	root = filepath.Join(home, "recipe")
	marker = filepath.Join(home, "started")
	files := map[string]string{
		"package.json": `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
		  {"id": "big", "tools": {"include": ["*"], "exclude": ["tool0001"]}}, {"id": "other", "tools": {"include": ["*"]}}]}}}`,
		"mcp.json": fmt.Sprintf(`{"mcpServers": {"big": {"command": "sh", "args": ["-c", "touch %s"]},
		  "other": {"command": "sh", "args": ["-c", "touch %s"]}}}`, marker, marker),
		"agents/ops.yaml": "mcp:\n  mode: cli\n  servers:\n    big:\n      include: [tool0002, tool0003]\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	if trusted {
		if _, err := manifests.Trust(root, false); err != nil {
			tb.Fatal(err)
		}
	}
	t, err := mux.HostTarget(root, false, "")
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := t.Load()
	if err != nil {
		tb.Fatal(err)
	}
	eng := mux.NewEngineFor(cfg, upstream.Options{})
	defer eng.Close()
	key, _ := eng.EndpointKey("big")
	dir, err := catalog.DefaultCacheDir()
	if err != nil {
		tb.Fatal(err)
	}
	cache, err := catalog.OpenCache(dir)
	if err != nil {
		tb.Fatal(err)
	}
	entry := &catalog.CacheEntry{Server: "big", Fetched: time.Now().Add(-48 * time.Hour), Capabilities: upstream.Options{}.Declared()}
	for i := range n {
		entry.Tools = append(entry.Tools, bigTool(i))
	}
	if err := cache.Store(key, entry); err != nil {
		tb.Fatal(err)
	}
	return root, marker
}

// bigTool is a tool of the size real servers list: a description and a
// few arguments, one an enum.
func bigTool(i int) catalog.Tool {
	schema := fmt.Sprintf(`{"type": "object", "required": ["path"], "properties": {
	  "path": {"type": "string", "description": "The file to work on, relative to the project root (tool %d)."},
	  "mode": {"type": "string", "enum": ["fast", "thorough", "dry-run"], "description": "How hard to try."},
	  "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "At most this many results."},
	  "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels to attach."}}}`, i)
	name := fmt.Sprintf("tool%04d", i)
	raw, _ := json.Marshal(map[string]any{"name": name, "inputSchema": json.RawMessage(schema),
		"description": "Does one thing of many to a file of the project, and says what it did in a paragraph of text."})
	return catalog.Tool{Server: "big", Name: name, Description: "Does one thing of many to a file of the project, and says what it did in a paragraph of text.",
		InputSchema: json.RawMessage(schema), Raw: raw}
}

func toolsOf(cat *mux.Catalog) map[string][]string {
	out := map[string][]string{}
	for _, s := range cat.Servers {
		out[s.ID] = catalog.Names(s.Tools)
	}
	return out
}

// The host's source reads the recipe as mcp list finds it, and the
// catalog cache however old, for the surface only, and starts nothing.
func TestHost(t *testing.T) {
	root, marker := hostRecipe(t, 5, true)
	ctx := context.Background()
	cat, err := Host(ctx, root, "")
	if err != nil {
		t.Fatal(err)
	}
	got := toolsOf(cat)
	if want := []string{"tool0000", "tool0002", "tool0003", "tool0004"}; !slices.Equal(got["big"], want) || len(got["other"]) != 0 {
		t.Errorf("the package's tools: %v, want big: %v and other: none", got, want)
	}
	cat, err = Host(ctx, root, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolsOf(cat), []string{"tool0002", "tool0003"}; !slices.Equal(got["big"], want) {
		t.Errorf("the agent's tools: %v, want big: %v", got, want)
	}
	// Without --recipe: the nearest recipe above the working directory.
	t.Chdir(filepath.Join(root, "agents"))
	cat, err = Host(ctx, "", "ops")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolsOf(cat); len(got["big"]) != 2 {
		t.Errorf("found from the working directory: %v", got)
	}
	if _, err := Host(ctx, root, "nobody"); err == nil {
		t.Error("an agent that does not exist gave tools")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a server was started")
	}
}

// An untrusted recipe's servers are offered, as mcp list shows them, but
// not their tools: what it says is not shown as if it could be used.
func TestHost_untrusted(t *testing.T) {
	root, marker := hostRecipe(t, 5, false)
	cat, err := Host(context.Background(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	got := toolsOf(cat)
	ids := make([]string, 0, len(got))
	for id, tools := range got {
		ids = append(ids, id)
		if len(tools) != 0 {
			t.Errorf("%s offers %v", id, tools)
		}
	}
	sort.Strings(ids)
	if !slices.Equal(ids, []string{"big", "other"}) {
		t.Errorf("servers %v", ids)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a server was started")
	}
}

// BenchmarkHost is Tab after "mcp call big." and after a tool's name, on
// the host, for a server of 1,000 tools: from the line to the candidates,
// the recipe read and the catalog cache decoded each time, as each Tab
// runs mcp afresh. median-ms is what a shell waits (docs/benchmarks.md);
// it should stay under 30.
func BenchmarkHost(b *testing.B) {
	root, _ := hostRecipe(b, 1000, true)
	for _, text := range []string{"mcp call big.", "mcp call big.tool0500 "} {
		b.Run(text, func(b *testing.B) {
			values := func(string) bool { return false }
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				cat, err := Host(context.Background(), root, "")
				if err != nil {
					b.Fatal(err)
				}
				if len(candidates(parseLine(text, values), cat)) < 4 {
					b.Fatal("too few candidates")
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
