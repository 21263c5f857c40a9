//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv"
)

const everythingSpec = "@modelcontextprotocol/server-everything@2026.8.31"

// A recipe in a directory under a world-writable one (as /tmp is), whose
// server is `npx -y PACKAGE@VERSION`, where another user has installed
// PACKAGE at VERSION in the world-writable directory's node_modules: the
// planted binary never runs, whether mcp connects directly, through the
// recipe's multiplexer or through a session. With a package.json of its
// own in the recipe, npm looks no higher and neither does mcp: the server
// runs through the runner as written. Without one, npm's local prefix is
// the world-writable directory, where npx would run the other user's
// package: the server is refused (exit 4, one line naming what another
// user owns and who), and the runner is not started either. The user's own
// package in the recipe's own node_modules still starts without the
// runner.
func TestPlantedNpxPackage(t *testing.T) {
	m := newMuxEnv(t)
	if os.Getuid() != 0 {
		t.Fatal("this test plants a package as a second local user, which needs root to create (CI runs as root)")
	}
	sc := plantNpxScene(t, m)
	x, marker, runnerLog, env, attacker := sc.x, sc.marker, sc.runnerLog, sc.env, sc.attacker
	manifest := `{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "` + everythingSpec + `", "stdio"]}}}`
	recipe := `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "everything", "tools": {"include": ["echo"]}}]}}}`
	own := filepath.Join(x, "own")
	refused := "mcp: error: server everything not started: " + filepath.Join(x, "node_modules") + " belongs to " + attacker.Owner() +
		": npx would run another user's package; remove it or install it yourself\n"
	for _, tc := range []struct {
		dir     string
		files   map[string]string
		runner  bool   // started through the runner
		refused string // the one line of a refusal, "" when the call works
	}{
		{"with-package-json", map[string]string{"package.json": recipe, "mcp.json": manifest}, true, ""},
		{"without-package-json", map[string]string{".mcp.json": manifest}, false, refused},
		{"own", map[string]string{"package.json": recipe, "mcp.json": manifest}, false, ""},
	} {
		r := *m
		r.root = filepath.Join(x, tc.dir)
		for name, data := range tc.files {
			writeFile(t, filepath.Join(r.root, name), data)
		}
		if r.root == own {
			installOwnEverything(t, own)
		}
		r.trust()
		id := r.startSession("", env...)
		t.Cleanup(func() { r.run(nil, "session", "stop", id) })
		for _, way := range []struct {
			name string
			env  []string
		}{{"directly", []string{"MCP_NO_MUX=1"}}, {"through the multiplexer", nil}, {"in a session", []string{"MCP_SESSION=" + id}}} {
			if err := os.WriteFile(runnerLog, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			res := r.run(append(append([]string{}, env...), way.env...), "call", "everything.echo", "message=hi", "--timeout", "60s")
			switch {
			case tc.refused == "" && (res.code != 0 || !strings.Contains(res.stdout, "Echo: hi") || strings.Contains(res.stderr, "node_modules")):
				t.Errorf("%s, %s: exit %d, stdout %q, stderr %q", tc.dir, way.name, res.code, res.stdout, res.stderr)
			case tc.refused != "" && (res.code != exit.Upstream || res.stdout != "" || res.stderr != tc.refused):
				t.Errorf("%s, %s: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.dir, way.name, res.code, res.stdout, res.stderr, exit.Upstream, tc.refused)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s, %s: the package another user planted ran", tc.dir, way.name)
			}
			ran, _ := os.ReadFile(runnerLog)
			if got := strings.TrimSpace(string(ran)); tc.runner && got != "-y "+everythingSpec+" stdio" || !tc.runner && got != "" {
				t.Errorf("%s, %s: the runner was given %q (started through it: want %v)", tc.dir, way.name, got, tc.runner)
			}
		}
		if tc.refused != "" {
			plantedRefusedElsewhere(t, &r, env, tc.refused)
		}
	}
}

// plantedRefusedElsewhere checks that the refusal of the planted package
// reaches mcp list, as the reason on the server's line, and mcp serve (of
// a recipe of the user's own that starts the server in r's directory), as
// the one warning line of a server whose tools are not served.
func plantedRefusedElsewhere(t *testing.T, r *muxEnv, env []string, refused string) {
	t.Helper()
	line := strings.TrimSuffix(strings.TrimPrefix(refused, "mcp: error: "), "\n")
	why := strings.TrimPrefix(line[:strings.Index(line, ": npx would")], "server everything not started: ")
	res := r.run(env, "list")
	if want := "everything  not started: " + why + "\n"; res.code != exit.Upstream || res.stdout != want || res.stderr != "" {
		t.Errorf("list: exit %d, stdout %q, stderr %q; want exit %d and %q", res.code, res.stdout, res.stderr, exit.Upstream, want)
	}
	s := *r
	s.root = filepath.Join(t.TempDir(), "serve")
	manifest, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": "npx", "args": []string{"-y", everythingSpec, "stdio"}, "cwd": r.root}}})
	writeFile(t, filepath.Join(s.root, "mcp.json"), string(manifest))
	writeFile(t, filepath.Join(s.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "everything", "tools": {"include": ["echo"]}}]}}}`)
	writeFile(t, filepath.Join(s.root, "agents", "tooler.yaml"), "mcp:\n  mode: tools\n  servers:\n    everything: { include: [echo] }\n")
	s.trust()
	res = s.run(env, "--agent", "tooler", "serve")
	warning := "mcp: warning: the tools of everything are not served: " + line + "\n"
	if res.code != 0 || strings.Count(res.stderr, warning) != 1 || strings.Count(res.stderr, "node_modules") != 1 {
		t.Errorf("serve: exit %d, stderr %q; want one line %q", res.code, res.stderr, warning)
	}
}

// npxScene is a world-writable directory x (sticky, as /tmp is) where
// another user installed server-everything, whose planted binary writes
// marker if it ever runs, and a stand-in npx on env's PATH that notes its
// arguments in runnerLog and starts the test servers' own install.
type npxScene struct {
	x, marker, runnerLog string
	env                  []string
	attacker             *localUser
}

func plantNpxScene(t *testing.T, m *muxEnv) *npxScene {
	t.Helper()
	base, err := os.MkdirTemp("", "mcp-planted-npx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	x := filepath.Join(base, "x")
	mkdir(t, x)
	for dir, mode := range map[string]os.FileMode{base: 0o755, x: 0o777 | os.ModeSticky} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	attacker := newLocalUser(t, base)
	marker := filepath.Join(base, "planted-ran") // only the host may write here
	pkg := "node_modules/@modelcontextprotocol/server-everything"
	attacker.Sh(t, x, `
mkdir -p node_modules/.bin `+pkg+`/dist
printf '%s' '{"name":"@modelcontextprotocol/server-everything","version":"2026.8.31","bin":{"mcp-server-everything":"dist/index.js"}}' > `+pkg+`/package.json
printf '#!/bin/sh\necho planted >> `+marker+`\n' > `+pkg+`/dist/index.js
chmod 755 `+pkg+`/dist/index.js
ln -s ../@modelcontextprotocol/server-everything/dist/index.js node_modules/.bin/mcp-server-everything
`)

	// npx as written: a stand-in that notes its arguments and starts the
	// package from the test servers' own install.
	runnerLog := filepath.Join(base, "runner.log")
	fakeBin := filepath.Join(base, "bin")
	js := filepath.Join(testenv.Dir(t), pkg, "dist", "index.js")
	writeFile(t, filepath.Join(fakeBin, "npx"), "#!/bin/sh\necho \"$@\" >> "+runnerLog+"\nexec "+testenv.Node(t)+" "+js+" stdio\n")
	if err := os.Chmod(filepath.Join(fakeBin, "npx"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + fakeBin + string(os.PathListSeparator) + m.envValue("PATH")}
	return &npxScene{x: x, marker: marker, runnerLog: runnerLog, env: env, attacker: attacker}

}

// installOwnEverything installs server-everything in dir/node_modules as
// npm link would: the package directory links to the test servers' own
// install, and its binary is an entry in node_modules/.bin.
func installOwnEverything(t *testing.T, dir string) {
	t.Helper()
	scope := filepath.Join(dir, "node_modules", "@modelcontextprotocol")
	bin := filepath.Join(dir, "node_modules", ".bin")
	for _, d := range []string{scope, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(testenv.Dir(t), "node_modules", "@modelcontextprotocol", "server-everything")
	if err := os.Symlink(target, filepath.Join(scope, "server-everything")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@modelcontextprotocol/server-everything/dist/index.js", filepath.Join(bin, "mcp-server-everything")); err != nil {
		t.Fatal(err)
	}
}
