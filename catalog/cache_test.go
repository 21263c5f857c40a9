package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCache_Load(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tool := Tool{Server: "s", Name: "research", TaskSupport: TaskRequired}
	if err := c.Store("k", &CacheEntry{Server: "s", Fetched: time.Now(), Tools: []Tool{tool}}); err != nil {
		t.Fatal(err)
	}
	e := c.Load("k")
	if e == nil || len(e.Tools) != 1 || e.Tools[0].TaskSupport != TaskRequired {
		t.Fatalf("Load = %+v", e)
	}
	// An entry written before the format had a number lacks fields its
	// tools may have: it is as good as none.
	old := `{"server":"s","fetched":"2026-01-01T00:00:00Z","tools":[{"server":"s","name":"research","raw":{"name":"research","execution":{"taskSupport":"required"}}}]}`
	if err := os.WriteFile(filepath.Join(c.Dir(), "old.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if e := c.Load("old"); e != nil {
		t.Errorf("Load of an entry of the old format = %+v, want nil", e)
	}
	// One of format 2 was written before a server's metadata went without
	// the recipe's secrets, and may hold them.
	two := `{"format":2,"server":"s","fetched":"2026-01-01T00:00:00Z","instructions":"use sk-live-0123456789abcdef","tools":[]}`
	if err := os.WriteFile(filepath.Join(c.Dir(), "two.json"), []byte(two), 0o600); err != nil {
		t.Fatal(err)
	}
	if e := c.Load("two"); e != nil {
		t.Errorf("Load of an entry of format 2 = %+v, want nil", e)
	}
	// One of format 3 was written before a tool's description and title
	// were cut as they are read, and may hold them whole.
	three := `{"format":3,"server":"s","fetched":"2026-01-01T00:00:00Z","tools":[{"server":"s","name":"t","description":"` + strings.Repeat("d", 9000) + `"}]}`
	if err := os.WriteFile(filepath.Join(c.Dir(), "three.json"), []byte(three), 0o600); err != nil {
		t.Fatal(err)
	}
	if e := c.Load("three"); e != nil {
		t.Errorf("Load of an entry of format 3 = %d tools, want nil", len(e.Tools))
	}
}
