package benchdata

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const catalogFixture = `{"id": "Ant Design.list", "server": "Ant Design", "name": "list", "description": "List components", "inputSchema": {"type":"object"}, "server_title": "Ant", "server_description": "UI kit"}
{"id": "Ant-Design.list", "server": "Ant-Design", "name": "list", "description": "Another server", "inputSchema": {}}
{"id": "ok_server.get", "server": "ok_server", "name": "get", "description": "Get a thing"}

{"id": "ok_server.put", "server": "ok_server", "name": "put", "description": "Put a thing"}
`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestLoadCatalog(t *testing.T) {
	c, err := LoadCatalog(writeFile(t, "c.jsonl", catalogFixture))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servers) != 3 || len(c.Tools()) != 4 || len(c.IDs) != 4 {
		t.Fatalf("servers %d tools %d ids %d", len(c.Servers), len(c.Tools()), len(c.IDs))
	}
	seen := map[string]bool{}
	for _, s := range c.Servers {
		if !validID.MatchString(s.ID) {
			t.Errorf("invalid server id %q", s.ID)
		}
		canon := strings.ReplaceAll(s.ID, "-", "_")
		if seen[canon] {
			t.Errorf("server ids collide: %q", s.ID)
		}
		seen[canon] = true
	}
	if c.IDs["ok_server.get"] != "ok_server.get" {
		t.Errorf("valid id changed: %q", c.IDs["ok_server.get"])
	}
	if c.IDs["Ant-Design.list"] != "Ant-Design.list" {
		t.Errorf("valid id changed: %q", c.IDs["Ant-Design.list"])
	}
	again, _ := LoadCatalog(writeFile(t, "c.jsonl", catalogFixture))
	if again.IDs["Ant Design.list"] != c.IDs["Ant Design.list"] {
		t.Error("mapping is not deterministic")
	}
	if c.Servers[0].Info.Title != "Ant" {
		t.Errorf("server info lost: %+v", c.Servers[0].Info)
	}
}

func TestLoadQueries(t *testing.T) {
	c, err := LoadCatalog(writeFile(t, "c.jsonl", catalogFixture))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := LoadQueries(writeFile(t, "q.jsonl", `{"query": "ui list", "gold_groups": [["Ant Design.list", "ok_server.get"]]}`+"\n"), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].GoldGroups[0][0] != c.IDs["Ant Design.list"] {
		t.Errorf("queries = %+v", qs)
	}
	if _, err := LoadQueries(writeFile(t, "q.jsonl", `{"query": "x", "gold_groups": [["nope.tool"]]}`), c); err == nil {
		t.Error("unknown gold id accepted")
	}
}

func TestScale(t *testing.T) {
	c, err := LoadCatalog(writeFile(t, "c.jsonl", catalogFixture))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 4, 10, 101} {
		servers := c.Scale(n)
		ids := map[string]bool{}
		count := 0
		for _, s := range servers {
			if !validID.MatchString(s.ID) {
				t.Errorf("invalid server id %q", s.ID)
			}
			for _, tl := range s.Tools {
				if tl.Server != s.ID || ids[tl.ID()] {
					t.Errorf("bad or repeated tool %s", tl.ID())
				}
				ids[tl.ID()] = true
				count++
			}
		}
		if count != n {
			t.Errorf("Scale(%d) gave %d tools", n, count)
		}
	}
	a, b := c.Scale(50), c.Scale(50)
	for i := range a {
		for j := range a[i].Tools {
			if a[i].Tools[j].Description != b[i].Tools[j].Description {
				t.Fatal("Scale is not deterministic")
			}
		}
	}
}
