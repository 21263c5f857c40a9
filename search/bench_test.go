package search_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
	"github.com/mcpsh/mcp/search"
)

// BenchmarkIndex_Search is one warm query, short and long, on 10,000 tools
// made from the LiveMCPBench catalog.
func BenchmarkIndex_Search(b *testing.B) {
	c, err := benchdata.LoadCatalog(filepath.Join("..", "bench", "data", "livemcpbench", "catalog.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	ix, err := search.OpenMem()
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for _, s := range c.Scale(10000) {
		if err := ix.Replace(s.ID, s.Info, s.Tools); err != nil {
			b.Fatal(err)
		}
	}
	for name, q := range map[string]string{
		"short": "take a screen shot",
		"long":  "Find the earliest available high-speed train from Beijing to Shanghai for tomorrow and save the result to /root/markdown/train.md",
		"typo":  "wether forcast for tomorow in a city",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Search(q, search.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
