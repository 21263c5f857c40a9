package manifests

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseAgentString(file, src string) (*Agent, error) {
	return readAgent(strings.NewReader(src), file, "support")
}

func TestParseAgent_Full(t *testing.T) {
	src := `name: support
description: answers questions
model: some-model
extends: base
tools:
  - bash
  - read
mcp:
  mode: tools
  servers:
    contacts:
      include: ["*"]
      defer: ["*"]
      eager:
        - search_contacts
    dev-radius:
      include: [ping]
      exclude: [reboot]
    empty:
`
	a, err := parseAgentString("agents/support.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	want := &Agent{
		Name: "support", File: "agents/support.yaml", Extends: "base", Tools: []string{"bash", "read"},
		Pos: Pos{File: "agents/support.yaml", Line: 4, Col: 1},
		MCP: &AgentMCP{
			Mode: "tools", Pos: Pos{File: "agents/support.yaml", Line: 8, Col: 1},
			ModePos: Pos{File: "agents/support.yaml", Line: 9, Col: 9},
			Servers: []AgentServer{
				{ID: "contacts", Include: []string{"*"}, Defer: []string{"*"}, Eager: []string{"search_contacts"},
					Pos:        Pos{File: "agents/support.yaml", Line: 11, Col: 5},
					IncludePos: []Pos{{"agents/support.yaml", 12, 17}}, DeferPos: []Pos{{"agents/support.yaml", 13, 15}},
					EagerPos: []Pos{{"agents/support.yaml", 15, 11}}},
				{ID: "dev-radius", Include: []string{"ping"}, Exclude: []string{"reboot"},
					Pos:        Pos{File: "agents/support.yaml", Line: 16, Col: 5},
					IncludePos: []Pos{{"agents/support.yaml", 17, 17}}, ExcludePos: []Pos{{"agents/support.yaml", 18, 17}}},
				{ID: "empty", Pos: Pos{File: "agents/support.yaml", Line: 19, Col: 5}},
			},
		},
	}
	if d := cmp.Diff(want, a); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseAgent_NoMCP(t *testing.T) {
	cases := []struct{ name, file, src string }{
		{"empty yaml", "a.yaml", ""},
		{"comment only", "a.yaml", "# nothing\n"},
		{"null document", "a.yaml", "~\n"},
		{"no mcp key", "a.yml", "name: x\ntools: [bash]\n"},
		{"md without front matter", "a.md", "# Title\n\nSome text\n---\nmcp: {servers: {x: {include: [a]}}}\n"},
		{"empty md", "a.md", ""},
		{"md front matter without mcp", "a.md", "---\nname: x\n---\nbody\n"},
		{"md empty front matter", "a.md", "---\n---\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAgentString(tc.file, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if a.MCP != nil || a.Name != "support" || a.File != tc.file {
				t.Errorf("agent %+v", a)
			}
		})
	}
}

func TestParseAgent_FrontMatter(t *testing.T) {
	cases := []struct{ name, src string }{
		{"lf", "---\nmcp:\n  servers:\n    contacts:\n      include: [search_contacts]\n---\n# Support\n"},
		{"crlf", "---\r\nmcp:\r\n  servers:\r\n    contacts:\r\n      include: [search_contacts]\r\n---\r\n# Support\r\n"},
		{"bom and trailing blanks", "\ufeff---  \nmcp:\n  servers:\n    contacts:\n      include: [search_contacts]\n--- \t\nbody"},
		{"closing fence at end of file", "---\nmcp:\n  servers:\n    contacts:\n      include: [search_contacts]\n---"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAgentString("agents/support.md", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if a.MCP == nil || len(a.MCP.Servers) != 1 {
				t.Fatalf("mcp %+v", a.MCP)
			}
			s := a.MCP.Servers[0]
			if s.ID != "contacts" || len(s.Include) != 1 || s.Include[0] != "search_contacts" {
				t.Errorf("server %+v", s)
			}
			if s.Pos.Line != 4 || s.IncludePos[0].Line != 5 {
				t.Errorf("positions must count the opening fence: %v %v", s.Pos, s.IncludePos)
			}
		})
	}
}

func TestParseAgent_Errors(t *testing.T) {
	cases := []struct{ name, file, src, pos, want string }{
		{"the pattern example", "agents/support.yaml",
			"name: support\nmcp:\n  mode: cli\n  servers:\n    contacts:\n      include:\n      - search_*\n",
			"agents/support.yaml:7:9", `mcp.servers.contacts.include[0]: "search_*" is a pattern; tool names are exact or "*"`},
		{"pattern in md counts fence", "agents/support.md",
			"---\nmcp:\n  servers:\n    contacts:\n      include: [get*]\n---\n",
			"agents/support.md:5:17", `mcp.servers.contacts.include[0]: "get*" is a pattern`},
		{"unterminated front matter", "a.md", "---\nmcp: {}\nbody\n", "a.md:1:1",
			`front matter is not closed; end the YAML front matter with a line holding only "---"`},
		{"unterminated crlf front matter", "a.md", "---\r\nmcp: {}\r\n", "a.md:1:1", `front matter is not closed`},
		{"only an opening fence", "a.md", "---", "a.md:1:1", `front matter is not closed`},
		{"bad mode", "a.yaml", "mcp:\n  mode: CLI\n", "a.yaml:2:9", `mcp.mode: "CLI" is not a mode; mode is "cli" or "tools"`},
		{"mode not string", "a.yaml", "mcp:\n  mode: [cli]\n", "a.yaml:2:9", `mcp.mode: must be a string, not a list`},
		{"unknown mcp key", "a.yaml", "mcp:\n  servers: {}\n  allow: [x]\n", "a.yaml:3:3",
			`mcp: "allow" is not a known key; valid keys are mode, servers`},
		{"defer in the mcp block", "a.yaml", "mcp:\n  mode: tools\n  defer: ['*']\n", "a.yaml:3:3",
			`mcp: "defer" is not a known key; valid keys are mode, servers; defer goes under each server, as mcp.servers.ID.defer`},
		{"eager in the mcp block", "a.yaml", "mcp:\n  mode: tools\n  eager: [a]\n", "a.yaml:3:3",
			`mcp: "eager" is not a known key; valid keys are mode, servers; eager goes under each server, as mcp.servers.ID.eager`},
		{"include in the mcp block", "a.yaml", "mcp:\n  include: [a]\n", "a.yaml:2:3",
			`mcp: "include" is not a known key; valid keys are mode, servers; include goes under each server, as mcp.servers.ID.include`},
		{"unknown server key", "a.yaml", "mcp:\n  servers:\n    x:\n      includes: [a]\n", "a.yaml:4:7",
			`mcp.servers.x: "includes" is not a known key; did you mean "include"? valid keys are include, exclude, defer, eager`},
		{"merge key in mcp", "a.yaml", "base: &b {include: [a]}\nmcp:\n  servers:\n    x:\n      <<: *b\n", "a.yaml:5:7",
			`mcp.servers.x: "<<" is not a known key`},
		{"star in eager", "a.yaml", "mcp:\n  servers:\n    x:\n      eager: ['*']\n", "a.yaml:4:15",
			`mcp.servers.x.eager[0]: "*" is not allowed in eager; eager lists exact tool names`},
		{"star in exclude", "a.yaml", "mcp:\n  servers:\n    x:\n      exclude: ['*']\n", "a.yaml:4:17",
			`mcp.servers.x.exclude[0]: "*" is not allowed in exclude`},
		{"star not alone in defer", "a.yaml", "mcp:\n  servers:\n    x:\n      defer: [a, '*']\n", "a.yaml:4:18",
			`mcp.servers.x.defer[1]: "*" must be the only entry of defer`},
		{"pattern in defer", "a.yaml", "mcp:\n  servers:\n    x:\n      defer: [a|b]\n", "a.yaml:4:15", `"a|b" is a pattern`},
		{"pattern in eager", "a.yaml", "mcp:\n  servers:\n    x:\n      eager: ['(a)']\n", "a.yaml:4:15", `"(a)" is a pattern`},
		{"tool with space", "a.yaml", "mcp:\n  servers:\n    x:\n      include: ['a b']\n", "a.yaml:4:17", `"a b" is not a valid tool name`},
		{"tool number", "a.yaml", "mcp:\n  servers:\n    x:\n      include: [123]\n", "a.yaml:4:17",
			`include[0]: must be a tool name (a string), not a number; quote names`},
		{"include scalar", "a.yaml", "mcp:\n  servers:\n    x:\n      include: '*'\n", "a.yaml:4:16",
			`mcp.servers.x.include: must be a list of tool names, not a string; write include as a list`},
		{"bad server id", "a.yaml", "mcp:\n  servers:\n    a.b:\n      include: [x]\n", "a.yaml:3:5",
			`mcp.servers: "a.b" is not a valid server id`},
		{"duplicate server canonical", "a.yaml", "mcp:\n  servers:\n    dev-radius: {}\n    dev_radius: {}\n", "a.yaml:4:5",
			`mcp.servers: "dev_radius" is a duplicate server id; it is already declared at line 3`},
		{"duplicate server exact", "a.yaml", "mcp:\n  servers:\n    x: {}\n    x: {}\n", "a.yaml:4:5", `"x" is a duplicate server id`},
		{"servers list", "a.yaml", "mcp:\n  servers: [contacts]\n", "a.yaml:2:12", `mcp.servers: must be a mapping of server ids, not a list`},
		{"server scalar", "a.yaml", "mcp:\n  servers:\n    x: all\n", "a.yaml:3:8", `mcp.servers.x: must be a mapping, not a string`},
		{"mcp scalar", "a.yaml", "mcp: yes\n", "a.yaml:1:6", `mcp: must be a mapping, not a string`},
		{"duplicate mcp", "a.yaml", "mcp: {}\nmcp:\n  servers: {x: {include: ['*']}}\n", "a.yaml:2:1",
			`"mcp" is a duplicate key; it is already set at line 1`},
		{"extends not string", "a.yaml", "extends: [a]\n", "a.yaml:1:10", `extends: must be a string, not a list`},
		{"extends empty", "a.yaml", "extends: ''\n", "a.yaml:1:10", `extends: is empty`},
		{"tools not list", "a.yaml", "tools: bash\n", "a.yaml:1:8", `tools: must be a list of strings, not a string`},
		{"top not mapping", "a.yaml", "- a\n- b\n", "a.yaml:1:1", `must be a mapping, not a list`},
		{"yaml syntax", "a.yaml", "mcp:\n  servers: {x: [}\n", "a.yaml:2", `invalid YAML:`},
		{"yaml syntax in md", "a.md", "---\nname: x\nmcp:\n  servers: {x: [}\n---\n", "a.md:4", `invalid YAML:`},
		{"yaml scanner error", "a.yaml", "name: x\nmcp:\n  servers: a: b\n", "a.yaml:3", `invalid YAML: mapping values are not allowed in this context`},
		{"yaml tab", "a.yaml", "mcp:\n\tservers: {}\n", "a.yaml:2", `invalid YAML: found character that cannot start any token`},
		{"two documents", "a.yaml", "mcp: {}\n---\nmcp: {}\n", "a.yaml:2", `more than one YAML document`},
		{"merge brings in mcp", "a.yaml", "base: &b\n  mcp: {servers: {x: {include: [a]}}}\n<<: *b\n", "a.yaml:3:1",
			`"mcp" comes from a merge key (<<), which is not supported here; write mcp out in the agent file`},
		{"merge list brings in extends", "a.yaml", "b1: &b1 {x: 1}\nb2: &b2 {extends: p}\n<<: [*b1, *b2]\n", "a.yaml:3:1",
			`"extends" comes from a merge key`},
		{"complex key", "a.yaml", "? [a, b]\n: c\n", "a.yaml:1:3", `mapping keys must be plain values`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseAgentString(tc.file, tc.src)
			wantAt(t, err, tc.pos, tc.want)
		})
	}
}

func TestParseAgent_Null(t *testing.T) {
	cases := []struct {
		name, src string
		check     func(*testing.T, *Agent)
	}{
		{"mcp null is declared and empty", "mcp:\n", func(t *testing.T, a *Agent) {
			if a.MCP == nil || len(a.MCP.Servers) != 0 || a.MCP.Pos.Line != 1 {
				t.Errorf("mcp %+v", a.MCP)
			}
		}},
		{"servers null", "mcp:\n  mode: cli\n  servers:\n", func(t *testing.T, a *Agent) {
			if a.MCP == nil || a.MCP.Mode != "cli" || len(a.MCP.Servers) != 0 {
				t.Errorf("mcp %+v", a.MCP)
			}
		}},
		{"include null is empty", "mcp:\n  servers:\n    x:\n      include:\n", func(t *testing.T, a *Agent) {
			if s := a.MCP.Servers[0]; s.Include == nil || len(s.Include) != 0 {
				t.Errorf("include %#v", s.Include)
			}
		}},
		{"include absent is nil", "mcp:\n  servers:\n    x: {}\n", func(t *testing.T, a *Agent) {
			if s := a.MCP.Servers[0]; s.Include != nil {
				t.Errorf("include %#v", s.Include)
			}
		}},
		{"merge of other keys is fine", "defaults: &d {model: m}\n<<: *d\nmcp: {mode: cli}\n", func(t *testing.T, a *Agent) {
			if a.MCP == nil || a.MCP.Mode != "cli" {
				t.Errorf("mcp %+v", a.MCP)
			}
		}},
		{"aliases expand", "names: &n [a, b]\nmcp:\n  servers:\n    x:\n      include: *n\n", func(t *testing.T, a *Agent) {
			if s := a.MCP.Servers[0]; len(s.Include) != 2 || s.Include[1] != "b" {
				t.Errorf("include %#v", s.Include)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAgentString("a.yaml", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, a)
		})
	}
}

func TestParseAgent_AliasBomb(t *testing.T) {
	src := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		src += n + ": &" + n + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = n
	}
	src += "mcp:\n  servers:\n    x:\n      include: *i\n"
	_, err := parseAgentString("a.yaml", src)
	wantErrs(t, err, "counting what aliases repeat")
}

func TestParseAgent_Bounds(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		_, err := parseAgentString("a.yaml", "name: x\n#"+strings.Repeat("x", maxFileSize))
		wantErrs(t, err, "a.yaml: file is larger than the 1 MiB limit")
	})
	t.Run("servers", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("mcp:\n  servers:\n")
		for i := range maxServers + 1 {
			b.WriteString("    s" + strings.Repeat("x", i/26) + string(rune('a'+i%26)) + ": {}\n")
		}
		_, err := parseAgentString("a.yaml", b.String())
		wantErrs(t, err, "a.yaml:3:5: mcp.servers: has 1001 server entries, over the limit of 1000 per file")
	})
}
