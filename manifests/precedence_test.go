package manifests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sourceFormat writes servers (id to command) in one program's format.
type sourceFormat func(f userFixture, servers [][2]string) string

func jsonServers(key string, entry func(cmd string) string) sourceFormat {
	return func(_ userFixture, servers [][2]string) string {
		var b strings.Builder
		b.WriteString(`{"` + key + `": {`)
		for i, s := range servers {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %s", s[0], entry(s[1]))
		}
		b.WriteString("}}")
		return b.String()
	}
}

var (
	plainFormat    = jsonServers("mcpServers", func(cmd string) string { return `{"command": "` + cmd + `"}` })
	vscodeFormat   = jsonServers("servers", func(cmd string) string { return `{"type": "stdio", "command": "` + cmd + `"}` })
	zedFormat      = jsonServers("context_servers", func(cmd string) string { return `{"command": "` + cmd + `", "args": []}` })
	opencodeFormat = jsonServers("mcp", func(cmd string) string { return `{"type": "local", "command": ["` + cmd + `"]}` })
)

func codexFormat(_ userFixture, servers [][2]string) string {
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = %q\n", s[0], s[1])
	}
	return b.String()
}

// claudeLocalFormat writes the working directory's servers in ~/.claude.json.
func claudeLocalFormat(f userFixture, servers [][2]string) string {
	return `{"projects": {"@CWD@": ` + plainFormat(f, servers) + `}}`
}

// everySource is every file LoadUser reads, in precedence order, lowest
// first, with the format of each.
var everySource = []struct {
	file   placed
	format sourceFormat
}{
	{placed{base: inConfig, rel: "Claude/claude_desktop_config.json"}, plainFormat},
	{placed{base: inHome, rel: ".cursor/mcp.json"}, plainFormat},
	{placed{base: inConfig, rel: "Code/User/mcp.json"}, vscodeFormat},
	{placed{base: inHome, rel: ".codeium/windsurf/mcp_config.json"}, plainFormat},
	{placed{base: inHome, rel: ".codex/config.toml"}, codexFormat},
	{placed{base: inHome, rel: ".gemini/settings.json"}, plainFormat},
	{placed{base: inZed, rel: "settings.json"}, zedFormat},
	{placed{base: inXDG, rel: "opencode/opencode.json"}, opencodeFormat},
	{placed{base: inXDG, rel: "opencode/opencode.jsonc"}, opencodeFormat},
	{placed{base: inHome, rel: ".claude.json"}, plainFormat},
	{placed{base: inCwd, rel: ".cursor/mcp.json"}, plainFormat},
	{placed{base: inCwd, rel: ".vscode/mcp.json"}, vscodeFormat},
	{placed{base: inCwd, rel: ".codex/config.toml"}, codexFormat},
	{placed{base: inCwd, rel: ".gemini/settings.json"}, plainFormat},
	{placed{base: inCwd, rel: ".zed/settings.json"}, zedFormat},
	{placed{base: inCwd, rel: "opencode.json"}, opencodeFormat},
	{placed{base: inCwd, rel: "opencode.jsonc"}, opencodeFormat},
	{placed{base: inCwd, rel: ".mcp.json"}, plainFormat},
	{placed{base: inHome, rel: ".claude.json"}, claudeLocalFormat},
	{placed{base: inHome, rel: ".pi/agent/mcp.json"}, plainFormat},
	{placed{base: inCwd, rel: ".pi/mcp.json"}, plainFormat},
}

// TestLoadUser_EverySourcePrecedence gives source k the servers p<k> and
// p<k+1>: each p<k> must come from source k, the later of the two that
// name it, and each file must be listed as read.
func TestLoadUser_EverySourcePrecedence(t *testing.T) {
	f := newUserFixture(t)
	contents := map[string][]string{} // path -> contents of its sources
	for k, src := range everySource {
		cmd := fmt.Sprintf("src-%d", k)
		servers := [][2]string{{fmt.Sprintf("p%d", k), cmd}, {fmt.Sprintf("p%d", k+1), cmd}}
		p := src.file.path(f)
		contents[p] = append(contents[p], src.format(f, servers))
	}
	for p, cs := range contents {
		content := cs[0]
		if len(cs) == 2 { // ~/.claude.json: its user servers and this project's
			content = strings.TrimSuffix(cs[0], "}") + `, "projects": ` + strings.TrimPrefix(strings.TrimSuffix(cs[1], "}"), `{"projects": `) + "}"
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(withCwd(f, content)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chmod(t, filepath.Join(f.cwd, ".pi"), 0o755)
	r, err := LoadUser(f.paths())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 {
		t.Fatalf("warnings: %q", r.Warnings)
	}
	for k := range everySource {
		id := fmt.Sprintf("p%d", k)
		if got, want := r.Endpoints[id].Command, fmt.Sprintf("src-%d", k); got != want {
			t.Errorf("%s (%s): command %q, want %q", id, everySource[k].file.rel, got, want)
		}
		// Each server of the user's own editor files names the file it
		// came from; pi's own files (the last two) are no editor's, and
		// the working directory's need trust to start anything.
		want := everySource[k].file.display(f)
		if k >= len(everySource)-2 || everySource[k].file.base(f) == f.cwd {
			want = ""
		}
		if got := r.Editors[id]; got != want {
			t.Errorf("%s: from the editor configuration %q, want %q", id, got, want)
		}
	}
	if _, ok := r.Editors[fmt.Sprintf("p%d", len(everySource))]; ok {
		t.Errorf("a server of pi's own file is said to come from an editor's: %q", r.Editors)
	}
	if len(r.Sources) != len(everySource) {
		t.Fatalf("sources: %+v", r.Sources)
	}
	for k, s := range r.Sources {
		if want := everySource[k].file.display(f); s.File != want || s.Servers != 2 || s.Skipped != "" {
			t.Errorf("source %d: %+v, want %s with 2 servers", k, s, want)
		}
	}
	if s := r.Sources[len(everySource)-3]; s.Section != fmt.Sprintf("projects[%q]", filepath.ToSlash(f.cwd)) {
		t.Errorf("the project's part of ~/.claude.json: %+v", s)
	}
}

// TestLoadUser_ImportDamaged: a file that does not parse is skipped with
// one warning, and listed as skipped.
func TestLoadUser_ImportDamaged(t *testing.T) {
	for _, src := range everySource[:len(everySource)-2] { // pi's own files are strict
		t.Run(src.file.rel, func(t *testing.T) {
			damaged := src.file
			damaged.content = "{\n  \"mcpServers\": {\"a\": "
			if strings.HasSuffix(src.file.rel, ".toml") {
				damaged.content = "[mcp_servers.a\ncommand = \"x\"\n"
			}
			f, r := loadFixture(t, damaged)
			if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "skipped file: "+damaged.display(f)+":2:") {
				t.Errorf("warnings %q", r.Warnings)
			}
			if len(r.Sources) != 1 || r.Sources[0].Skipped == "" || r.Sources[0].File != damaged.display(f) {
				t.Errorf("sources %+v", r.Sources)
			}
		})
	}
}

// TestLoadUser_EveryImportTooLarge: every file is bounded, ~/.claude.json at 64
// MiB (of which only the servers are parsed), the others at 1 MiB.
func TestLoadUser_EveryImportTooLarge(t *testing.T) {
	for _, src := range everySource[:len(everySource)-2] {
		t.Run(src.file.rel, func(t *testing.T) {
			f := newUserFixture(t)
			p := src.file.path(f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			limit, label := int64(maxFileSize), "1 MiB limit for configuration files"
			if src.file.rel == ".claude.json" {
				limit, label = claudeLimit.bytes, "64 MiB limit for this file; older versions of Claude Code"
			}
			big, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := big.Truncate(limit + 1); err != nil { // sparse: nothing is written
				t.Fatal(err)
			}
			big.Close()
			r, err := LoadUser(f.paths())
			if err != nil {
				t.Fatal(err)
			}
			want := "skipped file: " + src.file.display(f) + ": file is larger than the " + label
			if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], want) {
				t.Errorf("warnings %q, want %q", r.Warnings, want)
			}
		})
	}
}

// TestLoadUser_ClaudeJSONHistory: ~/.claude.json over the 1 MiB of other
// files (Claude Code's history) is read, and what is not servers is not
// kept.
func TestLoadUser_ClaudeJSONHistory(t *testing.T) {
	history := `[` + strings.Repeat(`{"display": "a prompt that was typed", "pastedContents": {}},`, 40_000) + `{}]`
	content := `{"projects": {"/elsewhere": {"history": ` + history + `, "mcpServers": {"no": {"command": "no"}}},` +
		`"@CWD@": {"history": ` + history + `, "mcpServers": {"yes": {"command": "yes"}}}},` +
		`"mcpServers": {"user": {"command": "user"}}, "oauthAccount": {"emailAddress": "ada@example.com"}}`
	if len(content) < 4*maxFileSize {
		t.Fatalf("the fixture is only %d bytes", len(content))
	}
	_, r := loadFixture(t, placed{inHome, ".claude.json", content})
	if len(r.Endpoints) != 2 || r.Endpoints["yes"].Command != "yes" || r.Endpoints["user"].Command != "user" || len(r.Warnings) != 0 {
		t.Errorf("endpoints %v warnings %q", r.Endpoints, r.Warnings)
	}
	top, err := parseJSONOnly([]byte(content), "c", claudeKeep(&importCtx{cwd: "@CWD@"}))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(n *node, path string)
	walk = func(n *node, path string) {
		for _, m := range n.members {
			keys = append(keys, path+m.key)
			walk(m.val, path+m.key+".")
		}
	}
	walk(top, "")
	want := "projects projects.@CWD@ projects.@CWD@.mcpServers projects.@CWD@.mcpServers.yes projects.@CWD@.mcpServers.yes.command mcpServers mcpServers.user mcpServers.user.command"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("parsed %s\nwant   %s", got, want)
	}
}

// BenchmarkParseClaudeJSON reads the servers out of a ~/.claude.json that
// holds 16 MB of older Claude Code's prompt history, pretty-printed as
// Claude Code writes it.
func BenchmarkParseClaudeJSON(b *testing.B) {
	entry := "\n        {\n          \"display\": \"rename the handler and update its callers\",\n          \"pastedContents\": {}\n        },"
	history := "[" + strings.Repeat(entry, 16<<20/len(entry)) + "\n        {}\n      ]"
	var projects []string
	for _, dir := range []string{"/home/ada/old", "/home/ada/proj"} {
		projects = append(projects, fmt.Sprintf("    %q: {\n      \"history\": %s,\n      \"mcpServers\": {\"s\": {\"command\": \"s\"}}\n    }", dir, history))
	}
	data := []byte("{\n  \"numStartups\": 12,\n  \"projects\": {\n" + strings.Join(projects, ",\n") +
		"\n  },\n  \"mcpServers\": {\"user\": {\"type\": \"stdio\", \"command\": \"user\", \"args\": []}}\n}\n")
	keep := claudeKeep(&importCtx{cwd: "/home/ada/proj"})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		top, err := parseJSONOnly(data, "~/.claude.json", keep)
		if err != nil || memberVal(memberVal(memberVal(top, "projects"), "/home/ada/proj"), "mcpServers") == nil {
			b.Fatal(err)
		}
	}
}
