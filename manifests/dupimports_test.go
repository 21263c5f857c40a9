package manifests

import (
	"slices"
	"strings"
	"testing"
)

// An imported configuration that says a thing twice starts neither copy:
// jq, Python and JavaScript read the last of two keys, and mcp must never
// start what a reviewer reading the file that way would not see. A server
// id written twice, or an entry with a key written twice anywhere in it,
// is unusable; a key written twice on the way to the servers makes the
// whole file so. Each is one warning with the file, line and key.
func TestLoadUser_DuplicateKeysStartNothing(t *testing.T) {
	cases := []struct {
		name string
		file placed
		want []string // the servers that may start
		warn string   // the one warning, after its position
	}{
		{"id twice", placed{inHome, ".cursor/mcp.json",
			"{\"mcpServers\": {\n\"a\": {\"command\": \"/bin/first\"},\n\"ok\": {\"command\": \"/bin/ok\"},\n\"a\": {\"command\": \"/bin/second\"}}}\n"},
			[]string{"ok"}, `mcpServers: "a" is a duplicate server id; it is also written at line 2, and mcp starts neither`},
		{"key twice in an entry", placed{inHome, ".cursor/mcp.json",
			"{\"mcpServers\": {\n\"a\": {\"command\": \"/bin/first\", \"command\": \"/bin/second\"},\n\"ok\": {\"command\": \"/bin/ok\"}}}\n"},
			[]string{"ok"}, `mcpServers.a: "command" is a duplicate key; it is already set at line 2`},
		{"key twice deep in an entry", placed{inHome, ".cursor/mcp.json",
			"{\"mcpServers\": {\n\"a\": {\"command\": \"/bin/x\", \"oddity\": {\"x\": 1,\n \"x\": 2}},\n\"ok\": {\"command\": \"/bin/ok\"}}}\n"},
			[]string{"ok"}, `mcpServers.a.oddity: "x" is a duplicate key; it is already set at line 2`},
		{"servers twice", placed{inHome, ".cursor/mcp.json",
			"{\"mcpServers\": {\"a\": {\"command\": \"/bin/first\"}},\n\"mcpServers\": {\"b\": {\"command\": \"/bin/second\"}}}\n"},
			nil, `"mcpServers" is a duplicate key; it is already set at line 1`},
		{"gemini's exclusions twice", placed{inHome, ".gemini/settings.json",
			"{\"mcp\": {},\n\"mcp\": {\"excluded\": [\"a\"]},\n\"mcpServers\": {\"a\": {\"command\": \"/bin/a\"}}}\n"},
			nil, `"mcp" is a duplicate key; it is already set at line 1`},
		{"codex, whose TOML forbids it", placed{inHome, ".codex/config.toml",
			"[mcp_servers.a]\ncommand = \"/bin/first\"\n[mcp_servers.a]\ncommand = \"/bin/second\"\n"},
			nil, `config.toml:3:`},
		{"claude user and local", placed{inHome, ".claude.json",
			"{\"mcpServers\": {\"a\": {\"command\": \"/bin/first\"},\n\"a\": {\"command\": \"/bin/second\"}, \"ok\": {\"command\": \"/bin/ok\"}}}\n"},
			[]string{"ok"}, `mcpServers: "a" is a duplicate server id; it is also written at line 1, and mcp starts neither`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, r := loadFixture(t, tc.file)
			var got []string
			for id := range r.Endpoints {
				got = append(got, id)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("servers %v may start, want %v", got, tc.want)
			}
			n := 0
			for _, w := range r.Warnings {
				if strings.Contains(w, tc.warn) {
					n++
				}
			}
			if n != 1 || len(r.Warnings) != 1 {
				t.Errorf("want one warning holding %q, got:\n%s", tc.warn, strings.Join(r.Warnings, "\n"))
			}
		})
	}
}
