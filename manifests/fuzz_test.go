package manifests

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkTyped fails when err is not one of the package's error types.
func checkTyped(t *testing.T, err error) {
	t.Helper()
	var es Errors
	var e *Error
	if !errors.As(err, &es) && !errors.As(err, &e) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
	if err.Error() == "" {
		t.Fatal("empty error message")
	}
}

// checkTools checks what a parser accepted as a tool list.
func checkTools(t *testing.T, list []string, pos []Pos, star bool) {
	t.Helper()
	if len(list) != len(pos) {
		t.Fatalf("list %q has %d positions", list, len(pos))
	}
	for _, name := range list {
		switch {
		case name == "*" && (!star || len(list) != 1):
			t.Fatalf("accepted %q in %q", name, list)
		case name == "*":
		case isPattern(name) || !ValidToolName(name):
			t.Fatalf("accepted tool name %q", name)
		}
	}
}

func FuzzParsePackage(f *testing.F) {
	f.Add([]byte(pkgJSON(`{"manifests": ["mcp.json"], "servers": [{"id": "contacts", "required": true, "tools": {"include": ["search_contacts"]}}]}`)))
	f.Add([]byte(pkgJSON(`{"servers": [{"id": "w", "tools": {"include": ["*"], "exclude": ["drop_table"]}}]}`)))
	f.Add([]byte(pkgJSON(`{"servers": [{"id": "a", "tools": {"include": ["x*", "*"]}}, {"id": "a"}]}`)))
	f.Add([]byte(`{"pi": {"mcp": null}}`))
	f.Add([]byte(`{"pi": "x"}`))
	f.Add([]byte(`[[[[[[[[[[]]]]]]]]]]`))
	f.Add([]byte("\ufeff{\"pi\": {\"mcp\": {\"manifests\": [\"../x\", \"/abs\"]}}}"))
	f.Add([]byte(`{"a": 1,}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pkg, err := readPackage(bytes.NewReader(data), "package.json")
		if err != nil {
			checkTyped(t, err)
			if pkg != nil {
				t.Fatal("package with an error")
			}
			return
		}
		if pkg == nil {
			return
		}
		if len(pkg.Manifests) != len(pkg.ManifestsPos) {
			t.Fatal("manifest positions")
		}
		seen := map[string]bool{}
		for _, s := range pkg.Servers {
			if !ValidServerID(s.ID) || seen[CanonicalID(s.ID)] {
				t.Fatalf("accepted server id %q", s.ID)
			}
			seen[CanonicalID(s.ID)] = true
			checkTools(t, s.Include, s.IncludePos, true)
			checkTools(t, s.Exclude, s.ExcludePos, false)
			if s.Pos.Line < 1 {
				t.Fatalf("position %v", s.Pos)
			}
		}
	})
}

func FuzzParseAgent(f *testing.F) {
	f.Add([]byte("mcp:\n  mode: tools\n  servers:\n    contacts:\n      include: ['*']\n      defer: ['*']\n      eager: [a]\n"), false)
	f.Add([]byte("---\r\nmcp:\r\n  servers:\r\n    x: {include: [a]}\r\n---\r\nbody"), true)
	f.Add([]byte("---\nmcp: {}\n"), true)
	f.Add([]byte("a: &a [x, *a]\nmcp: {servers: {x: {include: *a}}}\n"), false)
	f.Add([]byte("? [a]\n: b\n"), false)
	f.Add([]byte("mcp:\n  servers:\n    dev-radius: {}\n    dev_radius: {}\n"), false)
	f.Add([]byte("extends: base\ntools: [bash]\nmcp:\n"), false)
	f.Add([]byte("a: b\n---\nc: d\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, md bool) {
		file := "agents/a.yaml"
		if md {
			file = "agents/a.md"
		}
		a, err := readAgent(bytes.NewReader(data), file, "a")
		if err != nil {
			checkTyped(t, err)
			return
		}
		if a == nil || a.Name != "a" {
			t.Fatalf("agent %+v", a)
		}
		if a.MCP == nil {
			return
		}
		if m := a.MCP.Mode; m != "" && m != "cli" && m != "tools" {
			t.Fatalf("accepted mode %q", m)
		}
		seen := map[string]bool{}
		for _, s := range a.MCP.Servers {
			if !ValidServerID(s.ID) || seen[CanonicalID(s.ID)] {
				t.Fatalf("accepted server id %q", s.ID)
			}
			seen[CanonicalID(s.ID)] = true
			checkTools(t, s.Include, s.IncludePos, true)
			checkTools(t, s.Exclude, s.ExcludePos, false)
			checkTools(t, s.Defer, s.DeferPos, true)
			checkTools(t, s.Eager, s.EagerPos, false)
		}
	})
}

func FuzzParseServers(f *testing.F) {
	f.Add([]byte(basicManifest), false)
	f.Add([]byte(`{"servers": {"d": {"type": "stdio", "command": "x"}, "e": {"type": "sse", "url": "https://h"}}}`), true)
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "url": "https://h"}, "b": {"type": "http"}}}`), false)
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${A", "$$"], "env": {"=": "v"}}}}`), false)
	f.Add([]byte(`{"mcpServers": {"a-b": {"command": "x"}, "a_b": {"command": "y"}}}`), false)
	f.Add([]byte(`{"mcpServers": {"a": {"url": "https://h", "headers": {"X": 1}}}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, vscode bool) {
		key := "mcpServers"
		if vscode {
			key = "servers"
		}
		eps, err := readServers(bytes.NewReader(data), "mcp.json", key)
		if err != nil {
			checkTyped(t, err)
			return
		}
		checkAccepted(t, eps)
	})
}

// ownWords removes the fixed wording of Expand's errors, so that a value
// which happens to be a piece of that wording (such as "${...}") is not
// taken for an echo of itself.
var ownWords = strings.NewReplacer("has a malformed ${...}", "", "write ${NAME} or ${NAME:-default}, with NAME from A-Z, a-z, 0-9 and _", "",
	"is not set; set it, or write ${", "", ":-default}", "", `server "s": `, "", "variable ", "",
	"s.args[0]: ", "", "args[0]: ", "", "s.env.K: ", "", "env.K: ", "", "s.cwd: ", "", "cwd: ", "", "s.headers.H: ", "", "headers.H: ", "", "s.url: ", "", "url: ", "")

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "plain", "${A}", "${A:-d}", "$$", "$${A}", "${", "${A", "${1}", "a$b", "${A:-${B}}", "${MISSING}", "${E:-x}", "rite", "${...}"} {
		f.Add(s)
	}
	vars := map[string]string{"A": "alpha", "B": "b$${", "E": ""}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	f.Fuzz(func(t *testing.T, s string) {
		e := Endpoint{ID: "s", Command: "./x", Args: []string{s}, Env: map[string]string{"K": s}, Cwd: s, Dir: "/d",
			Headers: map[string]string{"H": s}, URL: s}
		got, err := e.Expand(lookup)
		if err != nil {
			var mv *MissingVarError
			var me *Error
			if !errors.As(err, &mv) && !errors.As(err, &me) {
				t.Fatalf("untyped error %T", err)
			}
			if len(s) > 3 && strings.Contains(ownWords.Replace(err.Error()), s) {
				t.Fatalf("error echoes the value: %v", err)
			}
			return
		}
		if !strings.Contains(s, "${") && got.Args[0] != s {
			t.Fatalf("changed %q to %q without ${", s, got.Args[0])
		}
		if got.Args[0] != got.Env["K"] || got.Env["K"] != got.Headers["H"] || got.URL != got.Args[0] {
			t.Fatal("fields expanded differently")
		}
		if e.Args[0] != s {
			t.Fatal("receiver changed")
		}
	})
}

// importClients are the formats FuzzImports drives, each with a sample.
var importClients = []struct {
	c      *client
	sample string
}{
	{claudeDesktop, "claude_desktop_config.json"},
	{cursor, "cursor-mcp.json"},
	{vscode, "vscode-user-mcp.json"},
	{windsurf, "windsurf-mcp_config.json"},
	{codex, "codex-config.toml"},
	{gemini, "gemini-settings.json"},
	{zed, "zed-settings.json"},
	{opencode, "opencode.jsonc"},
	{claudeUser, "claude.json"},
	{claudeLocal, "claude.json"},
}

// FuzzImports reads data as each program's file: it never panics, every
// problem is one of the package's errors, and every entry it accepts is a
// server mcp can reach.
func FuzzImports(f *testing.F) {
	for i, ic := range importClients {
		data, err := os.ReadFile(filepath.Join("testdata", "imports", ic.sample))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.ReplaceAll(data, []byte("@CWD@"), []byte("/w")), uint8(i))
	}
	f.Add([]byte(`{"mcp": {"servers": {"a": {"type": "local", "command": ["x", "{env:A}"]}}}}`), uint8(7))
	f.Add([]byte("[mcp_servers.a]\nurl = \"https://h\"\nenv_http_headers = { X = \"1A\" }\n"), uint8(4))
	f.Add([]byte(`{"context_servers": {"a": {"command": {"path": "x", "args": ["${X}"]}}}}`), uint8(6))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		ic := importClients[int(which)%len(importClients)]
		x := &importCtx{home: "/h", cwd: "/w", parsed: map[string]parsedFile{}}
		data, err := readAllLimit(bytes.NewReader(data), "f", fileLimit)
		if err != nil {
			checkTyped(t, err)
			return
		}
		var top *node
		switch {
		case ic.c.toml:
			top, err = parseTOML(data, "f")
		case ic.c.keep != nil:
			top, err = parseJSONOnly(data, "f", ic.c.keep(x))
		default:
			top, err = parseJSONC(data, "f")
		}
		if err != nil {
			checkTyped(t, err)
			return
		}
		m, field, shape, err := ic.c.open(top, "f", x)
		if err != nil {
			checkTyped(t, err)
			return
		}
		if m == nil {
			return
		}
		eps, skipped, err := serverMap(m, "f", field, true, shape)
		if err != nil {
			checkTyped(t, err)
		}
		if len(skipped) > 0 {
			checkTyped(t, skipped)
		}
		checkAccepted(t, eps)
	})
}

// FuzzParseJSONOnly: keeping everything, parseJSONOnly reads an object
// exactly as parseJSON does, and with Claude Code's filter it never
// panics.
func FuzzParseJSONOnly(f *testing.F) {
	f.Add([]byte(`{"a": [1, {"b": "c\"}"}], "d": {"e": null}}`))
	f.Add([]byte("{\n  \"projects\": {\"/w\": {\"mcpServers\": {\"s\": {\"command\": \"x\"}}, \"history\": [\"\\\\\"]}}\n}"))
	f.Add([]byte(`{"a": 1,}`))
	f.Add([]byte(`{"a" 1}`))
	f.Add([]byte(`{"\u00e9": "x"} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFileSize {
			return
		}
		if _, err := parseJSONOnly(data, "f", claudeKeep(&importCtx{cwd: "/w"})); err != nil {
			checkTyped(t, err)
		}
		if i := skipSpace(data, 0); i == len(data) || data[i] != '{' {
			return
		}
		all, errAll := parseJSONOnly(data, "f", func([]string) keepMode { return whole })
		want, errWant := parseJSON(data, "f")
		if (errAll == nil) != (errWant == nil) {
			t.Fatalf("parseJSONOnly: %v; parseJSON: %v", errAll, errWant)
		}
		if d := cmp.Diff(want, all, cmp.AllowUnexported(node{}, member{})); errWant == nil && d != "" {
			t.Fatalf("trees differ (-parseJSON +parseJSONOnly):\n%s", d)
		}
	})
}

// checkAccepted checks what a parser accepted: valid, distinct server ids,
// each entry with a transport, and every one expanding without a syntax
// error.
func checkAccepted(t *testing.T, eps []Endpoint) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range eps {
		if !ValidServerID(e.ID) || seen[CanonicalID(e.ID)] {
			t.Fatalf("accepted server id %q", e.ID)
		}
		seen[CanonicalID(e.ID)] = true
		if _, err := e.Transport(); err != nil {
			t.Fatalf("accepted entry without a transport: %v", err)
		}
		if _, err := e.Expand(func(string) (string, bool) { return "v", true }); err != nil {
			t.Fatalf("accepted entry does not expand: %v", err)
		}
	}
}
