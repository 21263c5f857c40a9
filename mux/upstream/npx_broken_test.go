//go:build unix

package upstream

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/manifests"
)

const (
	plantedName    = "@modelcontextprotocol/server-everything"
	plantedVersion = "2026.8.31"
)

var plantedArgs = []string{"-y", plantedName + "@" + plantedVersion, "stdio"}

// installOwn installs plantedName at plantedVersion in dir/node_modules
// as the user running the test would, and returns the paths the shortcut
// goes through, from node_modules down to the binary's file.
func installOwn(t *testing.T, dir string) []string {
	t.Helper()
	nm := filepath.Join(dir, "node_modules")
	pkg := filepath.Join(nm, filepath.FromSlash(plantedName))
	must(t, os.MkdirAll(filepath.Join(pkg, "dist"), 0o755))
	must(t, os.MkdirAll(filepath.Join(nm, ".bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(pkg, "package.json"),
		[]byte(`{"name":"`+plantedName+`","version":"`+plantedVersion+`","bin":{"mcp-server-everything":"dist/index.js"}}`), 0o644))
	must(t, os.WriteFile(filepath.Join(pkg, "dist", "index.js"), []byte("#!/bin/sh\n"), 0o755))
	bin := filepath.Join(nm, ".bin", "mcp-server-everything")
	must(t, os.Symlink("../"+plantedName+"/dist/index.js", bin))
	return []string{nm, filepath.Dir(pkg), pkg, filepath.Join(pkg, "package.json"), filepath.Dir(bin), bin,
		filepath.Join(pkg, "dist"), filepath.Join(pkg, "dist", "index.js")}
}

// An install the shortcut cannot read (a binary's entry that leads
// nowhere, a package.json that is a directory or a pipe nobody writes to)
// is passed over at once and without an error: the runner as written may
// mend it.
func TestDirectCommand_brokenInstall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, pkg string)
	}{
		{"dangling binary", func(t *testing.T, pkg string) {
			must(t, os.Remove(filepath.Join(pkg, "dist", "index.js")))
		}},
		{"package.json a directory", func(t *testing.T, pkg string) {
			must(t, os.Remove(filepath.Join(pkg, "package.json")))
			must(t, os.Mkdir(filepath.Join(pkg, "package.json"), 0o755))
		}},
		{"package.json a pipe", func(t *testing.T, pkg string) {
			must(t, os.Remove(filepath.Join(pkg, "package.json")))
			must(t, syscall.Mkfifo(filepath.Join(pkg, "package.json"), 0o644))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"proj"}`), 0o644))
			paths := installOwn(t, dir)
			tc.spoil(t, paths[2])
			ep := manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: dir}
			type direct struct {
				ep  manifests.Endpoint
				err error
			}
			done := make(chan direct, 1)
			go func() {
				ep, err := DirectCommand(ep)
				done <- direct{ep, err}
			}()
			select {
			case got := <-done:
				if got.ep.Command != "npx" || !slices.Equal(got.ep.Args, plantedArgs) || got.err != nil {
					t.Errorf("rewritten to %s %q, error %v; want npx as written, no error", got.ep.Command, got.ep.Args, got.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("DirectCommand did not return within 10 s")
			}
		})
	}
}
