package manifests

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// userFixture is a home, a working directory and a config dir, none inside
// another.
type userFixture struct {
	home, cwd, config string
}

func newUserFixture(t *testing.T) userFixture {
	t.Helper()
	base := t.TempDir()
	f := userFixture{home: filepath.Join(base, "home"), cwd: filepath.Join(base, "work", "proj"), config: filepath.Join(base, "cfg")}
	for _, d := range []string{f.home, f.cwd, f.config} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f userFixture) paths() UserPaths {
	return UserPaths{Home: f.home, Cwd: f.cwd, ConfigDir: f.config}
}

// project writes the trusted project file with safe permissions.
func (f userFixture) project(t *testing.T, content string) string {
	t.Helper()
	writeTree(t, f.cwd, map[string]string{".pi/mcp.json": content})
	p := filepath.Join(f.cwd, ".pi", "mcp.json")
	if err := os.Chmod(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func server(cmd string) string { return `{"command": "` + cmd + `"}` }

func TestLoadUser_Precedence(t *testing.T) {
	f := newUserFixture(t)
	writeTree(t, f.config, map[string]string{"Claude/claude_desktop_config.json": `{"globalShortcut": "x", "mcpServers": {
  "a": ` + server("claude") + `, "b": ` + server("claude") + `, "c": ` + server("claude") + `, "f": ` + server("claude") + `}}`})
	writeTree(t, f.home, map[string]string{
		".cursor/mcp.json":   `{"mcpServers": {"b": ` + server("cursor-home") + `, "c": ` + server("cursor-home") + `}}`,
		".pi/agent/mcp.json": `{"mcpServers": {"a": ` + server("pi-home") + `, "g-h": {"url": "https://h/mcp", "type": "sse"}}}`,
	})
	writeTree(t, f.cwd, map[string]string{
		".cursor/mcp.json": `{"mcpServers": {"c": ` + server("cursor-proj") + `}}`,
		".vscode/mcp.json": `{"inputs": [], "servers": {"d": {"type": "stdio", "command": "vscode"}, "e": {"type": "http", "url": "https://v/mcp"}}}`,
		".mcp.json":        `{"mcpServers": {"e": ` + server("claude-code") + `, "f": ` + server("claude-code") + `}}`,
	})
	f.project(t, `{"mcpServers": {"f": `+server("pi-project")+`, "g_h": `+server("pi-project")+`}}`)

	r, err := LoadUser(f.paths())
	if err != nil {
		t.Fatal(err)
	}
	if !r.User || r.Package != nil || r.Root != f.cwd || len(r.Warnings) != 0 {
		t.Fatalf("recipe User %v Package %v Root %q Warnings %q", r.User, r.Package, r.Root, r.Warnings)
	}
	want := map[string]string{"a": "pi-home", "b": "cursor-home", "c": "cursor-proj", "d": "vscode", "e": "claude-code", "f": "pi-project", "g_h": "pi-project"}
	for id, cmd := range want {
		if got := r.Endpoints[id].Command; got != cmd {
			t.Errorf("%s: command %q, want %q", id, got, cmd)
		}
	}
	if len(r.Endpoints) != len(want) {
		t.Errorf("endpoints %v", r.Endpoints)
	}
	if e := r.Endpoints["c"]; e.Dir != filepath.Join(f.cwd, ".cursor") || e.Pos.File != ".cursor/mcp.json" {
		t.Errorf("c: Dir %q Pos %v", e.Dir, e.Pos)
	}
	if e := r.Endpoints["b"]; e.Pos.File != "~/.cursor/mcp.json" || e.Pos.Line != 1 {
		t.Errorf("b: Pos %v", e.Pos)
	}
	if e := r.Endpoints["a"]; e.Pos.File != "~/.pi/agent/mcp.json" {
		t.Errorf("a: Pos %v", e.Pos)
	}
	if e := r.Endpoints["g_h"]; e.ID != "g_h" {
		t.Errorf("later file must replace the entry whole: %+v", e)
	}
	for _, p := range []string{
		filepath.Join(f.config, "Claude", "claude_desktop_config.json"),
		filepath.Join(f.home, ".cursor", "mcp.json"),
		filepath.Join(f.cwd, ".pi", "mcp.json"),
		filepath.Join(f.cwd, "opencode.json"), // not there: watched in case it appears
	} {
		if !slices.Contains(r.Files, p) {
			t.Errorf("Files lacks %s: %q", p, r.Files)
		}
	}
	// The directories the files are in are not watched whole: a home
	// directory changes all the time.
	for _, p := range []string{f.home, f.cwd, filepath.Join(f.cwd, ".pi")} {
		if slices.Contains(r.Files, p) {
			t.Errorf("Files holds the directory %s: %q", p, r.Files)
		}
	}
}

func TestLoadUser_NothingThere(t *testing.T) {
	f := newUserFixture(t)
	r, err := LoadUser(f.paths())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Endpoints) != 0 || len(r.Warnings) != 0 || !r.User {
		t.Errorf("%+v", r)
	}
	r, err = LoadUser(UserPaths{})
	if err != nil || len(r.Endpoints) != 0 {
		t.Errorf("empty paths: %+v %v", r, err)
	}
}

func TestLoadUser_CwdIsHome(t *testing.T) {
	f := newUserFixture(t)
	writeTree(t, f.home, map[string]string{".cursor/mcp.json": `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`})
	r, err := LoadUser(UserPaths{Home: f.home, Cwd: f.home})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 {
		t.Errorf("the one file must be read once: %q", r.Warnings)
	}
}

func TestLoadUser_ImportsSkipInvalidEntries(t *testing.T) {
	f := newUserFixture(t)
	writeTree(t, f.home, map[string]string{".cursor/mcp.json": `{"mcpServers": {
  "good": {"command": "x", "autoApprove": ["a"], "timeout": 30},
  "bad id": {"command": "x"},
  "neither": {"args": []},
  "env-number": {"command": "x", "env": {"TOKEN": 12345678}},
  "off": {"command": "x", "disabled": true},
  "on": {"command": "x", "disabled": false},
  "vars": {"command": "x", "args": ["${input:token}"]},
  "secret": {"url": "not a url", "headers": {"Authorization": "Bearer sekrit"}}
}}`})
	writeTree(t, f.config, map[string]string{"Claude/claude_desktop_config.json": `{"mcpServers": {`})
	writeTree(t, f.cwd, map[string]string{".vscode/mcp.json": `{"servers": []}`})
	r, err := LoadUser(f.paths())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Endpoints["good"]; !ok {
		t.Error("good entry missing")
	}
	if _, ok := r.Endpoints["on"]; !ok {
		t.Error("disabled: false entry missing")
	}
	for _, id := range []string{"bad id", "neither", "env_number", "off", "vars", "secret"} {
		if _, ok := r.Endpoints[id]; ok {
			t.Errorf("%s must be skipped", id)
		}
	}
	all := strings.Join(r.Warnings, "\n")
	for _, w := range []string{
		`skipped entry: ~/.cursor/mcp.json:3:3: mcpServers: "bad id" is not a valid server id`,
		`skipped entry: ~/.cursor/mcp.json:4:14: mcpServers.neither: has neither command nor url`,
		`skipped entry: ~/.cursor/mcp.json:5:51: mcpServers.env-number.env.TOKEN: must be a string, not a number`,
		`skipped entry: ~/.cursor/mcp.json:8:37: mcpServers.vars.args[0]: uses ${input:...}, a value the editor asks for`,
		`mcpServers.secret.url: is not an http or https URL`,
		`skipped file: cfg/Claude/claude_desktop_config.json:1:17: invalid JSON: unexpected end of file`,
		`skipped file: .vscode/mcp.json:1:13: servers: must be an object of servers by id, not a list`,
	} {
		w = strings.Replace(w, "cfg/", filepath.ToSlash(f.config)+"/", 1)
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if len(r.Warnings) != 7 {
		t.Errorf("want 7 warnings, got %d:\n%s", len(r.Warnings), all)
	}
	mustNotContain(t, all, "12345678", "sekrit", "not a url")
}

func TestLoadUser_ImportTooLarge(t *testing.T) {
	f := newUserFixture(t)
	writeTree(t, f.cwd, map[string]string{".mcp.json": `{"mcpServers": {}, "x": "` + strings.Repeat("x", maxFileSize) + `"}`})
	r, err := LoadUser(f.paths())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "skipped file: .mcp.json: file is larger than the 1 MiB limit") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

func TestLoadUser_PiFilesAreStrict(t *testing.T) {
	f := newUserFixture(t)
	writeTree(t, f.home, map[string]string{".pi/agent/mcp.json": `{"mcpServers": {"a": {"command": "x", "disabled": true}}}`})
	f.project(t, "{\"mcpServers\": {\n\"b\": {}}}")
	_, err := LoadUser(f.paths())
	wantAt(t, err, "~/.pi/agent/mcp.json:1:39", `mcpServers.a: "disabled" is not a known key`)
	wantAt(t, err, ".pi/mcp.json:2:6", `mcpServers.b: has neither command nor url`)
}

func TestLoadUser_Trust(t *testing.T) {
	if runtime.GOOS == "windows" {
		return // Windows has no Unix ownership; the rule checks file types only
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, f userFixture, file string)
		why   string
	}{
		{"trusted", func(*testing.T, userFixture, string) {}, ""},
		{"file world-writable", func(t *testing.T, _ userFixture, file string) { chmod(t, file, 0o666) },
			"the file is writable by group or others"},
		{"file group-writable", func(t *testing.T, _ userFixture, file string) { chmod(t, file, 0o664) },
			"the file is writable by group or others"},
		{"dir group-writable", func(t *testing.T, _ userFixture, file string) { chmod(t, filepath.Dir(file), 0o775) },
			"its directory is writable by group or others"},
		{"dir world-writable sticky", func(t *testing.T, _ userFixture, file string) {
			chmod(t, filepath.Dir(file), 0o777|os.ModeSticky)
		}, "its directory is writable by group or others"},
		{"file is a symlink", func(t *testing.T, f userFixture, file string) {
			real := filepath.Join(f.cwd, "real.json")
			if err := os.Rename(file, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, file); err != nil {
				t.Fatal(err)
			}
		}, "the file is a symlink"},
		{"dir is a symlink", func(t *testing.T, f userFixture, file string) {
			real := filepath.Join(f.cwd, "realdir")
			if err := os.Rename(filepath.Dir(file), real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, filepath.Dir(file)); err != nil {
				t.Fatal(err)
			}
		}, "its directory is a symlink"},
		{"file is a directory", func(t *testing.T, _ userFixture, file string) {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "the file is not a regular file"},
		{"file owned by someone else", func(t *testing.T, _ userFixture, file string) {
			giveAway(t, filepath.Base(file))
		}, "the file is not owned by the current user"},
		{"dir owned by someone else", func(t *testing.T, _ userFixture, file string) {
			giveAway(t, filepath.Base(filepath.Dir(file)))
		}, "its directory is not owned by the current user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newUserFixture(t)
			file := f.project(t, `{"mcpServers": {"proj": {"command": "x"}}}`)
			tc.setup(t, f, file)
			r, err := LoadUser(f.paths())
			if err != nil {
				t.Fatal(err)
			}
			_, loaded := r.Endpoints["proj"]
			if tc.why == "" {
				if !loaded || len(r.Warnings) != 0 {
					t.Fatalf("trusted file not read: %q", r.Warnings)
				}
				return
			}
			if loaded {
				t.Error("untrusted file was read")
			}
			want := ".pi/mcp.json: ignored: not trusted: " + tc.why
			if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], want) {
				t.Errorf("warnings %q, want %q", r.Warnings, want)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
