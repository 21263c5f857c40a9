package upstream

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/testenv/tempdir"
	"github.com/mcpsh/mcp/manifests"
)

// Where npm installs shims (Windows: a .cmd file, which only cmd.exe
// runs), the shortcut runs the package's own script under node, as the
// shim would; the runner is npx.cmd or npx.exe as well as npx. Tested
// with the shims rule switched on, as Windows has it (and on Windows, under
// Wine, as it is).
func TestDirectCommand_shims(t *testing.T) {
	old := shims // true on Windows, where this test runs under Wine too
	shims = true
	t.Cleanup(func() { shims = old })
	root := tempdir.New(t, "npx")
	nm := filepath.Join(root, "node_modules")
	pkg := filepath.Join(nm, "@acme", "server")
	must(t, os.MkdirAll(filepath.Join(pkg, "dist"), 0o755))
	must(t, os.MkdirAll(filepath.Join(nm, ".bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@acme/server","version":"1.0.0","bin":{"acme-server":"./dist/index.js"}}`), 0o644))
	must(t, os.WriteFile(filepath.Join(pkg, "dist", "index.js"), []byte("console.log(1)\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(nm, ".bin", "acme-server.cmd"), []byte("@node ...\r\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(nm, ".bin", "acme-server"), []byte("#!/bin/sh\n"), 0o644)) // npm's sh shim, no exec bit

	for _, runner := range []string{"npx", "npx.cmd", "/opt/nodejs/npx.CMD", "npx.exe"} {
		ep := manifests.Endpoint{ID: "s", Command: runner, Args: []string{"-y", "@acme/server@1.0.0", "stdio"}, Cwd: root}
		got, err := DirectCommand(ep)
		if err != nil {
			t.Fatalf("%s: %v", runner, err)
		}
		if got.Command != "node" || !slices.Equal(got.Args, []string{filepath.Join(pkg, "dist", "index.js"), "stdio"}) {
			t.Errorf("%s: %s %q, want node %s stdio", runner, got.Command, got.Args, filepath.Join(pkg, "dist", "index.js"))
		}
		if !strings.HasPrefix(got.Env["PATH"], filepath.Join(nm, ".bin")+string(os.PathListSeparator)) {
			t.Errorf("%s: PATH %q does not start with node_modules/.bin", runner, got.Env["PATH"])
		}
	}
	// Without the .cmd shim npm makes, the package is not one npm
	// installed: the runner runs it.
	must(t, os.Remove(filepath.Join(nm, ".bin", "acme-server.cmd")))
	ep := manifests.Endpoint{ID: "s", Command: "npx", Args: []string{"-y", "@acme/server@1.0.0"}, Cwd: root}
	if got, err := DirectCommand(ep); err != nil || got.Command != "npx" {
		t.Errorf("without its shim: %s %q %v, want npx", got.Command, got.Args, err)
	}
}

// A bin that leaves the package names no script.
func TestBinTarget(t *testing.T) {
	for data, want := range map[string]string{
		`{"bin":"cli.js"}`:              "cli.js",
		`{"bin":{"s":"./dist/s.js"}}`:   "dist/s.js",
		`{"bin":{"s":"../other/x.js"}}`: "",
		`{"bin":{"t":"t.js"}}`:          "",
		`{"bin":"/etc/passwd"}`:         "",
		`{"bin":7}`:                     "",
	} {
		got, ok := binTarget([]byte(data), "s")
		if got != want || ok != (want != "") {
			t.Errorf("binTarget(%s) = %q %v, want %q", data, got, ok, want)
		}
	}
}
