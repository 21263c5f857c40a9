package upstream

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpsh/mcp/manifests"
)

func TestRunnerPackage(t *testing.T) {
	for _, tc := range []struct {
		runner string
		args   []string
		spec   string
		rest   []string
		ok     bool
	}{
		{"npx", []string{"-y", "@scope/pkg", "stdio", "--port", "1"}, "@scope/pkg", []string{"stdio", "--port", "1"}, true},
		{"npx", []string{"--yes", "pkg@1.2.3"}, "pkg@1.2.3", []string{}, true},
		{"npx", []string{"-y", "--", "pkg", "-x"}, "pkg", []string{"-x"}, true},
		{"npx", []string{"-p", "pkg", "bin"}, "", nil, false},
		{"npx", []string{"--node-options=--inspect", "pkg"}, "", nil, false},
		{"npx", []string{"-y"}, "", nil, false},
		{"pnpm", []string{"dlx", "pkg", "a"}, "pkg", []string{"a"}, true},
		{"pnpm", []string{"exec", "pkg"}, "", nil, false},
		{"yarn", []string{"dlx", "pkg"}, "pkg", []string{}, true},
		{"bunx", []string{"pkg", "a"}, "pkg", []string{"a"}, true},
		{"bunx", []string{"--bun", "pkg"}, "", nil, false},
		{"node", []string{"server.js"}, "", nil, false},
	} {
		spec, rest, ok := runnerPackage(tc.runner, tc.args)
		if ok != tc.ok || spec != tc.spec || (ok && !slices.Equal(rest, tc.rest)) {
			t.Errorf("runnerPackage(%s %q) = %q %q %v, want %q %q %v", tc.runner, tc.args, spec, rest, ok, tc.spec, tc.rest, tc.ok)
		}
	}
}

func TestDirectCommand(t *testing.T) {
	root := t.TempDir()
	install := func(name, pkgJSON, bin string) {
		dir := filepath.Join(root, "node_modules", filepath.FromSlash(name))
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkgJSON), 0o644))
		if bin != "" {
			must(t, os.MkdirAll(filepath.Join(root, "node_modules", ".bin"), 0o755))
			must(t, os.WriteFile(filepath.Join(root, "node_modules", ".bin", bin), []byte("#!/bin/sh\n"), 0o755))
		}
	}
	install("@acme/server", `{"name":"@acme/server","version":"1.0.0","bin":{"acme-server":"dist/index.js"}}`, "acme-server")
	install("multi", `{"name":"multi","version":"2.0.0","bin":{"a":"a.js","b":"b.js"}}`, "a")
	install("plain", `{"name":"plain","version":"3.0.0","bin":"index.js"}`, "plain")
	install("nobin", `{"name":"nobin","version":"1.0.0"}`, "")
	sub := filepath.Join(root, "deep", "er")
	must(t, os.MkdirAll(sub, 0o755))
	bin := filepath.Join(root, "node_modules", ".bin")

	for _, tc := range []struct {
		args []string
		want string // "" means unchanged
	}{
		{[]string{"-y", "@acme/server", "stdio"}, filepath.Join(bin, "acme-server")},
		{[]string{"-y", "@acme/server@1.0.0"}, filepath.Join(bin, "acme-server")},
		{[]string{"-y", "@acme/server@2.0.0"}, ""},  // another version: npx fetches it
		{[]string{"-y", "@acme/server@latest"}, ""}, // a tag: the runner decides
		{[]string{"-y", "plain"}, filepath.Join(bin, "plain")},
		{[]string{"-y", "multi"}, ""}, // several binaries, none named multi
		{[]string{"-y", "nobin"}, ""},
		{[]string{"-y", "missing"}, ""},
		{[]string{"-y", "../../etc"}, ""},
	} {
		ep := manifests.Endpoint{Command: "npx", Args: tc.args, Cwd: sub}
		got, err := DirectCommand(ep)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
		}
		want := tc.want
		if want == "" {
			if got.Command != "npx" || !slices.Equal(got.Args, tc.args) {
				t.Errorf("%q: rewritten to %s %q, want it unchanged", tc.args, got.Command, got.Args)
			}
			continue
		}
		if got.Command != want || !slices.Equal(got.Args, tc.args[2:]) {
			t.Errorf("%q: got %s %q, want %s %q", tc.args, got.Command, got.Args, want, tc.args[2:])
		}
		if p := got.Env["PATH"]; len(p) < len(bin) || p[:len(bin)] != bin {
			t.Errorf("%q: PATH %q does not start with %s", tc.args, p, bin)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
