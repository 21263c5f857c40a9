//go:build linux

package upstream

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
	"github.com/mcpsh/mcp/manifests"
)

// plantPackage has p install, as npm would, plantedName at plantedVersion
// in dir/node_modules, its binary a script that writes marker.
func plantPackage(t *testing.T, p *localuser.User, dir, marker string) {
	t.Helper()
	p.Sh(t, dir, `
mkdir -p node_modules/.bin node_modules/`+plantedName+`/dist
printf '%s' '{"name":"`+plantedName+`","version":"`+plantedVersion+`","bin":{"mcp-server-everything":"dist/index.js"}}' > node_modules/`+plantedName+`/package.json
printf '#!/bin/sh\necho planted > `+marker+`\n' > node_modules/`+plantedName+`/dist/index.js
chmod 755 node_modules/`+plantedName+`/dist/index.js
ln -s ../`+plantedName+`/dist/index.js node_modules/.bin/mcp-server-everything
`)
}

// worldWritable makes base/x, a directory anyone may write in (mode 1777,
// as /tmp), under a directory anyone may reach.
func worldWritable(t *testing.T) (base, x string) {
	t.Helper()
	base, err := os.MkdirTemp("", "mcp-npx-planted-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	x = filepath.Join(base, "x")
	must(t, os.Chmod(base, 0o755))
	must(t, os.Mkdir(x, 0o755))
	must(t, os.Chmod(x, 0o777|os.ModeSticky))
	return base, x
}

// A package another user installed in a world-writable parent of the
// server's directory is never started: when npm's local prefix stops below
// it (the server's directory has a package.json of its own), the runner
// runs as written, since npx does not look there either; when the prefix
// is that parent itself, where npx would run it, the server is refused
// with an error that names what another user owns, and whose it is.
func TestDirectCommand_plantedPackage(t *testing.T) {
	base, x := worldWritable(t)
	p := localuser.New(t)
	marker := filepath.Join(base, "planted-ran")
	plantPackage(t, p, x, marker)
	planted := filepath.Join(x, "node_modules", ".bin", "mcp-server-everything")

	for _, tc := range []struct {
		name        string
		packageJSON bool
		refused     string // what the refusal says, "" for none
	}{
		{"own package.json", true, ""},
		{"no package.json", false, filepath.Join(x, "node_modules") + " belongs to " + p.Owner()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := filepath.Join(x, strings.ReplaceAll(tc.name, " ", "-"))
			must(t, os.Mkdir(proj, 0o755))
			if tc.packageJSON {
				must(t, os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"proj"}`), 0o644))
			}
			if bin, err := installedBin(proj, plantedName+"@"+plantedVersion); bin != "" || (err == nil) != (tc.refused == "") {
				t.Errorf("installedBin in %s = %q, %v", proj, bin, err)
			}
			ep := manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: proj}
			got, err := DirectCommand(ep)
			if got.Command != "npx" || !slices.Equal(got.Args, plantedArgs) {
				t.Errorf("rewritten to %s %q (the planted binary is %s), want npx as written", got.Command, got.Args, planted)
			}
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.refused != "" && (err == nil || !strings.HasPrefix(err.Error(), "server everything not started: "+tc.refused+": npx would run")):
				t.Errorf("error %v, want one that says %q", err, tc.refused)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the planted binary ran")
	}
}

// The user's own package in the recipe's own node_modules takes the
// shortcut, even under a world-writable directory; the same package with
// any one path on the way to it owned by another user, or writable by its
// group or by others, is refused with an error that names that path.
func TestDirectCommand_foreignPaths(t *testing.T) {
	_, x := worldWritable(t)
	p := localuser.New(t)
	type change struct {
		what string
		do   func(path string) error
	}
	changes := []change{
		{"belongs to " + p.Owner() + ": npx would run another user's package", func(path string) error { return os.Lchown(path, p.UID, p.GID) }},
		{"may be written by others than its owner (mode ", func(path string) error { return chmodOr(path, 0o020) }},
		{"may be written by others than its owner (mode ", func(path string) error { return chmodOr(path, 0o002) }},
	}
	run := func(proj string) (manifests.Endpoint, error) {
		return DirectCommand(manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: proj})
	}

	own := filepath.Join(x, "own")
	must(t, os.Mkdir(own, 0o755))
	must(t, os.WriteFile(filepath.Join(own, "package.json"), []byte(`{"name":"own"}`), 0o644))
	paths := installOwn(t, own)
	if got, err := run(own); got.Command != paths[5] || !slices.Equal(got.Args, []string{"stdio"}) || err != nil {
		t.Fatalf("the user's own package: %s %q, error %v; want %s [stdio]", got.Command, got.Args, err, paths[5])
	}

	n := 0
	for i := range paths {
		for j, c := range changes {
			if j > 0 && i == 5 {
				continue // a symbolic link has no mode of its own
			}
			n++
			proj := filepath.Join(x, "case"+strconv.Itoa(n))
			must(t, os.Mkdir(proj, 0o755))
			must(t, os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"case"}`), 0o644))
			path := installOwn(t, proj)[i]
			must(t, c.do(path))
			got, err := run(proj)
			if got.Command != "npx" || !slices.Equal(got.Args, plantedArgs) {
				t.Errorf("%s %s: rewritten to %s %q, want npx as written", path, c.what, got.Command, got.Args)
			}
			var fp *ForeignPackageError
			if !errors.As(err, &fp) || exit.Code(err) != exit.Upstream ||
				!strings.HasPrefix(err.Error(), "server everything not started: "+path+" "+c.what) {
				t.Errorf("%s %s: error %v (exit code %d)", path, c.what, err, exit.Code(err))
			}
		}
	}
}

func chmodOr(path string, bits os.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.Chmod(path, st.Mode().Perm()|bits)
}

// The user's own install, in a project that sits in a directory others may
// write and that is not sticky, is refused: whoever can write that
// directory could swap the project's node_modules between the check and
// the start, for the shortcut and for the runner alike. Sticky, as /tmp
// is, it is started directly.
func TestDirectCommand_prefixUnderAWritableDir(t *testing.T) {
	base, _ := worldWritable(t)
	open := filepath.Join(base, "open")
	must(t, os.Mkdir(open, 0o755))
	proj := filepath.Join(open, "proj")
	must(t, os.Mkdir(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"proj"}`), 0o644))
	paths := installOwn(t, proj)
	run := func() (manifests.Endpoint, error) {
		return DirectCommand(manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: proj})
	}
	must(t, os.Chmod(open, 0o777))
	want := "server everything not started: " + filepath.Join(proj, "node_modules") + " is under " + open +
		", which is writable by group or others (chmod go-w fixes that): npx would run a package others may change"
	if got, err := run(); got.Command != "npx" || err == nil || err.Error() != want {
		t.Errorf("under a directory others may write: %s %q, error %v\nwant %s", got.Command, got.Args, err, want)
	}
	must(t, os.Chmod(open, 0o777|os.ModeSticky))
	if got, err := run(); got.Command != paths[5] || err != nil {
		t.Errorf("under a sticky directory: %s %q, error %v; want %s", got.Command, got.Args, err, paths[5])
	}
}
