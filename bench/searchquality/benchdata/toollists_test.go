package benchdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeList(t *testing.T, dir, server, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, server), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, server, ToolListFile), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadToolLists(t *testing.T) {
	dir := t.TempDir()
	writeList(t, dir, "web", `{"tools": [{"name": "browser_navigate", "description": "Navigate to a URL", "inputSchema": {"type": "object"}}]}`)
	writeList(t, dir, "fs", `{"tools": [{"name": "read_file", "title": "Read", "description": "Read a file"}, {"name": "write_file"}]}`)
	if err := os.MkdirAll(filepath.Join(dir, "other"), 0o700); err != nil { // no tool list: not a server
		t.Fatal(err)
	}
	c, err := LoadToolLists(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servers) != 2 || c.Servers[0].ID != "fs" || c.Servers[1].ID != "web" || len(c.Tools()) != 3 {
		t.Fatalf("servers %+v", c.Servers)
	}
	if tl := c.Servers[0].Tools[0]; tl.ID() != "fs.read_file" || tl.Title != "Read" || c.IDs["web.browser_navigate"] != "web.browser_navigate" {
		t.Errorf("tool %+v, ids %v", tl, c.IDs)
	}
	for name, text := range map[string]string{
		"bad json":    `{"tools": [`,
		"no name":     `{"tools": [{"description": "x"}]}`,
		"given twice": `{"tools": [{"name": "a"}, {"name": "a"}]}`,
	} {
		d := t.TempDir()
		writeList(t, d, "s", text)
		if _, err := LoadToolLists(d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	d := t.TempDir()
	writeList(t, d, "not an id", `{"tools": []}`)
	if _, err := LoadToolLists(d); err == nil || !strings.Contains(err.Error(), "not a server id") {
		t.Errorf("bad directory name: %v", err)
	}
	if _, err := LoadToolLists(t.TempDir()); err == nil {
		t.Error("empty directory: no error")
	}
}
