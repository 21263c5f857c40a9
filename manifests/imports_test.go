package manifests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// placed is a file of a fixture: under which of its directories, where.
type placed struct {
	base    func(f userFixture) string
	rel     string // slash path under base
	content string
}

func inHome(f userFixture) string   { return f.home }
func inCwd(f userFixture) string    { return f.cwd }
func inConfig(f userFixture) string { return f.config }
func inZed(f userFixture) string    { return zedDir(f.home, f.config) }
func inXDG(f userFixture) string {
	return xdgConfigDir(runtime.GOOS, f.home, f.config, os.Getenv("XDG_CONFIG_HOME"))
}

func (p placed) path(f userFixture) string {
	return filepath.Join(p.base(f), filepath.FromSlash(p.rel))
}

func (p placed) display(f userFixture) string {
	return displayPath(p.path(f), f.cwd, f.home)
}

// sample reads a file of testdata/imports, with @CWD@ standing for the
// fixture's working directory (as a JSON string's content).
func sample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "imports", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func withCwd(f userFixture, s string) string {
	q, _ := json.Marshal(f.cwd)
	return strings.ReplaceAll(s, "@CWD@", string(q[1:len(q)-1]))
}

// load writes the files into a fresh fixture and loads the user's
// configuration from it.
func loadFixture(t *testing.T, files ...placed) (userFixture, *Recipe) {
	t.Helper()
	f := newUserFixture(t)
	for _, p := range files {
		path := p.path(f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(withCwd(f, p.content)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := LoadUser(f.paths())
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

// endpointFields compares what an entry says, not where it was written.
var endpointFields = cmpopts.IgnoreFields(Endpoint{}, "Pos", "Dir", "Untrusted")

// TestLoadUser_Imports reads one sample of each program's configuration,
// in its real format, from where the program keeps it.
func TestLoadUser_Imports(t *testing.T) {
	type want struct {
		eps   func(f userFixture) map[string]Endpoint
		warns []string // each the end of one warning after its position; no others
	}
	cases := []struct {
		name string
		file placed
		want want
	}{
		{"claude desktop", placed{inConfig, "Claude/claude_desktop_config.json", sample(t, "claude_desktop_config.json")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"filesystem": {ID: "filesystem", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"}},
					"sqlite": {ID: "sqlite", Command: "uvx", Args: []string{"mcp-server-sqlite", "--db-path", "${HOME}/test.db"},
						Env: map[string]string{"LOG_LEVEL": "debug"}},
				}
			},
			[]string{"mcpServers.broken.command: must be a string, not a number"},
		}},
		{"cursor", placed{inHome, ".cursor/mcp.json", sample(t, "cursor-mcp.json")}, want{
			func(f userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"linear": {ID: "linear", URL: "https://mcp.linear.app/sse", Headers: map[string]string{"Authorization": "Bearer ${LINEAR_TOKEN}"}},
					"notes": {ID: "notes", Command: f.cwd + "/bin/notes", Args: []string{"--root", f.home + "/notes"},
						Env: map[string]string{"NOTES_TOKEN": "${NOTES_TOKEN}"}},
				}
			},
			[]string{"mcpServers.asks.env.KEY: uses ${input:...}, a value the editor asks for when it starts the server, and mcp cannot ask"},
		}},
		{"vscode user", placed{inConfig, "Code/User/mcp.json", sample(t, "vscode-user-mcp.json")}, want{
			func(f userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"memory": {ID: "memory", Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"},
						Env: map[string]string{"MEMORY_FILE_PATH": f.home + "/.memory.json"}},
					"events": {ID: "events", Type: "sse", URL: "http://localhost:3001/sse"},
				}
			},
			[]string{
				"servers.github.headers.Authorization: uses ${input:...}",
				"servers.dotenv.envFile: names a file of variables, which mcp does not read; put the variables in env",
				"servers.fancy.command: uses ${config:...}, a variable of the editor that mcp does not resolve",
			},
		}},
		{"vscode workspace", placed{inCwd, ".vscode/mcp.json", sample(t, "vscode-workspace-mcp.json")}, want{
			func(f userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"playwright": {ID: "playwright", Command: "npx", Args: []string{"@playwright/mcp@latest", "--output-dir", f.cwd + string(filepath.Separator) + "out"}},
				}
			},
			[]string{`servers.ws.type: "websocket" is not a known transport type`},
		}},
		{"windsurf", placed{inHome, ".codeium/windsurf/mcp_config.json", sample(t, "windsurf-mcp_config.json")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"github": {ID: "github", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"},
						Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
					"figma":  {ID: "figma", URL: "https://mcp.figma.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${FIGMA_TOKEN}"}},
					"legacy": {ID: "legacy", URL: "http://127.0.0.1:8931/sse"},
				}
			},
			[]string{"mcpServers.nowhere.serverUrl: is not an http or https URL"},
		}},
		{"codex", placed{inHome, ".codex/config.toml", sample(t, "codex-config.toml")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"context7": {ID: "context7", Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"},
						Env: map[string]string{"CONTEXT7_API_KEY": "${CONTEXT7_KEY}"}},
					"docs": {ID: "docs", Command: "docs-server", Args: []string{"--port", "4000"}, Cwd: "/srv/docs", PassEnv: []string{"DOCS_TOKEN"}},
					"figma": {ID: "figma", URL: "https://mcp.figma.com/mcp", Type: "http", Headers: map[string]string{
						"X-Figma-Region": "us-east-1", "X-Team": "${FIGMA_TEAM}", "Authorization": "Bearer ${FIGMA_OAUTH_TOKEN}"}},
				}
			},
			[]string{"mcp_servers.badvar.bearer_token_env_var: is not an environment variable name"},
		}},
		{"gemini", placed{inHome, ".gemini/settings.json", sample(t, "gemini-settings.json")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"pythonTools": {ID: "pythonTools", Command: "python", Args: []string{"-m", "my_mcp_server", "--port", "8080"},
						Cwd: "./mcp-servers/python", Env: map[string]string{"DATABASE_URL": "${DB_CONNECTION_STRING}", "API_KEY": "${EXTERNAL_API_KEY}"}},
					"httpServer":  {ID: "httpServer", URL: "http://localhost:3000/mcp", Type: "http", Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}},
					"sseServer":   {ID: "sseServer", URL: "http://localhost:8080/sse", Type: "sse"},
					"typedServer": {ID: "typedServer", URL: "http://localhost:8081/mcp", Type: "http"},
				}
			},
			[]string{"mcpServers.nothing: has neither command nor url"},
		}},
		{"zed", placed{inZed, "settings.json", sample(t, "zed-settings.json")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"memory": {ID: "memory", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"},
						Env: map[string]string{"MEMORY_FILE_PATH": "/tmp/memory.json"}},
					"sqlite": {ID: "sqlite", Command: "uvx", Args: []string{"mcp-server-sqlite", "--db-path", "/tmp/test.db"}, Env: map[string]string{}},
					"remote": {ID: "remote", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer abc"}},
				}
			},
			[]string{
				"context_servers.postgres-context-server.source: is provided by a Zed extension, which mcp cannot start",
				"context_servers.github.settings: is provided by a Zed extension, which mcp cannot start",
			},
		}},
		{"opencode", placed{inCwd, "opencode.jsonc", sample(t, "opencode.jsonc")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"everything": {ID: "everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"},
						Env: map[string]string{"API_KEY": "${EVERYTHING_KEY}"}},
					"jira": {ID: "jira", URL: "https://jira.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${JIRA_TOKEN}"}},
				}
			},
			[]string{
				"mcp.from-file.headers.Authorization: uses {file:...}, a file's content, which mcp does not read",
				"mcp.empty.command: is empty",
			},
		}},
		{"claude code project", placed{inCwd, ".mcp.json", sample(t, "claude-code-mcp.json")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"api_server": {ID: "api-server", Type: "http", URL: "${API_BASE_URL:-https://api.example.com}/mcp",
						Headers: map[string]string{"Authorization": "Bearer ${API_KEY}"}},
					"shared": {ID: "shared", Command: "shared-project"},
				}
			},
			nil,
		}},
		{"claude code user and local", placed{inHome, ".claude.json", sample(t, "claude.json")}, want{
			func(userFixture) map[string]Endpoint {
				return map[string]Endpoint{
					"sentry": {ID: "sentry", Type: "http", URL: "https://mcp.sentry.dev/mcp"},
					"shared": {ID: "shared", Type: "stdio", Command: "shared-local", Args: []string{"--local"}},
					"airtable": {ID: "airtable", Type: "stdio", Command: "npx", Args: []string{"-y", "airtable-mcp-server"},
						Env: map[string]string{"AIRTABLE_API_KEY": "${AIRTABLE_KEY}"}},
				}
			},
			nil,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, r := loadFixture(t, tc.file)
			want := tc.want.eps(f)
			got := map[string]Endpoint{}
			for id, ep := range r.Endpoints {
				got[id] = ep
				if ep.Pos.File != tc.file.display(f) {
					t.Errorf("%s: Pos.File %q, want %q", id, ep.Pos.File, tc.file.display(f))
				}
				if ep.Dir != filepath.Dir(tc.file.path(f)) {
					t.Errorf("%s: Dir %q", id, ep.Dir)
				}
				if _, err := ep.Transport(); err != nil {
					t.Errorf("%s: %v", id, err)
				}
				// A file of the working directory is the project's: its
				// servers need trust. The user's own files need none.
				if project := strings.HasPrefix(tc.file.path(f), f.cwd+string(filepath.Separator)); project != (ep.Untrusted != nil) {
					t.Errorf("%s from %s: untrusted %v, want %v", id, tc.file.display(f), ep.Untrusted, project)
				}
			}
			if d := cmp.Diff(want, got, endpointFields, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("endpoints (-want +got):\n%s", d)
			}
			checkWarnings(t, r.Warnings, "skipped entry: "+tc.file.display(f), tc.want.warns)
			mustNotContain(t, strings.Join(r.Warnings, "\n"), "ghp_secret", "postgresql://", "Bearer abc", "~/.secrets")
		})
	}
}

// checkWarnings checks that every warning starts with prefix and that
// each of wants is the text of one of them after its position.
func checkWarnings(t *testing.T, warnings []string, prefix string, wants []string) {
	t.Helper()
	if len(warnings) != len(wants) {
		t.Errorf("%d warnings, want %d:\n%s", len(warnings), len(wants), strings.Join(warnings, "\n"))
	}
	for _, w := range wants {
		found := false
		for _, got := range warnings {
			if strings.HasPrefix(got, prefix) && strings.Contains(got, ": "+w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning %q...%q in:\n%s", prefix, w, strings.Join(warnings, "\n"))
		}
	}
}

// TestLoadUser_ImportDeepNesting: a project file nested as deep as 1 MiB
// allows is one warning. (The JSON-with-comments and TOML libraries
// recurse per level: unguarded, this overflows the stack and kills the
// process.)
func TestLoadUser_ImportDeepNesting(t *testing.T) {
	for _, tc := range []struct{ rel, content, want string }{
		{".vscode/mcp.json", strings.Repeat("[", maxFileSize), ":1:201: values are nested more than 200 deep"},
		{".zed/settings.json", "// deep\n{\"a\": " + strings.Repeat(`{"a": [`, maxFileSize/8), ":2:"},
		{".gemini/settings.json", `{"s": "[[[[", "t": /* [[[ */ ` + strings.Repeat("[", maxFileSize/2), ":1:"},
		{".codex/config.toml", "x = " + strings.Repeat("[", maxFileSize-8), ": has 1048568 arrays and tables, over the limit of 10000"},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			f, r := loadFixture(t, placed{inCwd, tc.rel, tc.content})
			want := "skipped file: " + tc.rel + tc.want
			if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], want) || len(r.Endpoints) != 0 {
				t.Errorf("warnings %q, want %q (cwd %s)", r.Warnings, want, f.cwd)
			}
		})
	}
}

// OpenCode reads $XDG_CONFIG_HOME on every system, and ~/.config without it.
func TestXDGConfigDir(t *testing.T) {
	for _, tc := range []struct{ goos, xdg, want string }{
		{"linux", "/x", "/cfg"},
		{"darwin", "/x", "/x"},
		{"darwin", "", "/home/.config"},
		{"darwin", "relative", "/home/.config"},
		{"windows", "/x", "/x"},
		{"windows", "", "/home/.config"},
	} {
		if got := xdgConfigDir(tc.goos, "/home", "/cfg", tc.xdg); got != tc.want {
			t.Errorf("xdgConfigDir(%s, XDG_CONFIG_HOME=%q) = %s; want %s", tc.goos, tc.xdg, got, tc.want)
		}
	}
}

// Claude Desktop's MSIX install keeps its configuration in the package's
// AppData; that one is read when it is there, the config directory's
// otherwise.
func TestClaudeDesktopDir(t *testing.T) {
	local := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "Roaming")
	if got, want := claudeDesktopDir("windows", cfg, local), filepath.Join(cfg, "Claude"); got != want {
		t.Errorf("without the package: %s; want %s", got, want)
	}
	pkg := filepath.Join(local, "Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := claudeDesktopDir("windows", cfg, local), filepath.Join(cfg, "Claude"); got != want {
		t.Errorf("with the package's directory but no configuration: %s; want %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(pkg, "claude_desktop_config.json"), []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := claudeDesktopDir("windows", cfg, local); got != pkg {
		t.Errorf("with the package's configuration: %s; want %s", got, pkg)
	}
	if got, want := claudeDesktopDir("darwin", cfg, local), filepath.Join(cfg, "Claude"); got != want {
		t.Errorf("on macOS: %s; want %s", got, want)
	}
}
