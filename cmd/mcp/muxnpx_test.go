//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/testenv"
)

// A server declared as `npx -y PACKAGE` whose package is installed starts
// from its installed binary, without npx; a form this does not fully
// understand (npx -p) runs through npx as written. Both work.
func TestMuxPackageRunner(t *testing.T) {
	dir := testenv.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	m := newMuxEnv(t)
	manifest, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"direct": map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}, "cwd": dir},
		"runner": map[string]any{"command": "npx", "args": []string{"-y", "-p", "@modelcontextprotocol/server-everything@" + pkg.Version, "mcp-server-everything", "stdio"}, "cwd": dir},
	}})
	writeFile(t, filepath.Join(m.root, "mcp.json"), string(manifest))
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
	  {"id": "direct", "tools": {"include": ["echo"]}}, {"id": "runner", "tools": {"include": ["echo"]}}]}}}`)
	m.trust()
	sock := m.socket("")
	for _, tc := range []struct {
		server string
		viaNpx bool
	}{{"direct", false}, {"runner", true}} {
		r := m.run(nil, "call", tc.server+".echo", "message=hi", "--timeout", "120s")
		if r.code != 0 || !strings.Contains(r.stdout, "hi") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", tc.server, r.code, r.stdout, r.stderr)
		}
		pid := m.serverPID(sock, tc.server)
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			t.Fatalf("%s: reading the server's command line: %v", tc.server, err)
		}
		argv := strings.ReplaceAll(string(cmdline), "\x00", " ")
		// npm sets its process title to "npm exec ..."; before that the
		// command line names npx-cli.js.
		first := filepath.Base(strings.Fields(argv)[0])
		usedNpx := first == "npm" || first == "npx" || strings.Contains(argv, "npx-cli.js") || strings.Contains(argv, "npm-cli.js")
		if usedNpx != tc.viaNpx {
			t.Errorf("%s: the server runs as %q; through npx: %v, want %v", tc.server, argv, usedNpx, tc.viaNpx)
		}
		if !tc.viaNpx && !strings.Contains(argv, filepath.Join("node_modules", ".bin", "mcp-server-everything")) {
			t.Errorf("%s: the server runs as %q, not from the installed binary", tc.server, argv)
		}
	}
}
