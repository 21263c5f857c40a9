//go:build linux

package upstream

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

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
// server's directory is never started: not when npm's local prefix stops
// below it (the server's directory has a package.json of its own), and
// not when the prefix is that parent itself, where it is passed over with
// one warning that names what another user owns. The runner then runs as
// written.
func TestDirectCommand_plantedPackage(t *testing.T) {
	base, x := worldWritable(t)
	p := localuser.New(t)
	marker := filepath.Join(base, "planted-ran")
	plantPackage(t, p, x, marker)
	planted := filepath.Join(x, "node_modules", ".bin", "mcp-server-everything")

	for _, tc := range []struct {
		name        string
		packageJSON bool
		warn        string // what the one warning says, "" for none
	}{
		{"own package.json", true, ""},
		{"no package.json", false, filepath.Join(x, "node_modules") + " is owned by " + p.Name},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := filepath.Join(x, strings.ReplaceAll(tc.name, " ", "-"))
			must(t, os.Mkdir(proj, 0o755))
			if tc.packageJSON {
				must(t, os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"proj"}`), 0o644))
			}
			if bin, err := installedBin(proj, plantedName+"@"+plantedVersion); bin != "" || (err == nil) != (tc.warn == "") {
				t.Errorf("installedBin in %s = %q, %v", proj, bin, err)
			}
			var warnings []string
			ep := manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: proj}
			got := DirectCommand(ep, func(line string) { warnings = append(warnings, line) })
			if got.Command != "npx" || !slices.Equal(got.Args, plantedArgs) {
				t.Errorf("rewritten to %s %q (the planted binary is %s), want npx as written", got.Command, got.Args, planted)
			}
			switch {
			case tc.warn == "" && len(warnings) > 0:
				t.Errorf("warnings %q, want none", warnings)
			case tc.warn != "" && (len(warnings) != 1 || !strings.HasPrefix(warnings[0], "everything: ") ||
				!strings.Contains(warnings[0], tc.warn) || !strings.Contains(warnings[0], "running npx as written")):
				t.Errorf("warnings %q, want one that says %q", warnings, tc.warn)
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
// group or by others, is passed over with a warning that names that path.
func TestDirectCommand_foreignPaths(t *testing.T) {
	_, x := worldWritable(t)
	p := localuser.New(t)
	type change struct {
		what string
		do   func(path string) error
	}
	changes := []change{
		{"is owned by " + p.Name, func(path string) error { return os.Lchown(path, p.UID, p.GID) }},
		{"may be written by others than its owner", func(path string) error { return chmodOr(path, 0o020) }},
		{"may be written by others than its owner", func(path string) error { return chmodOr(path, 0o002) }},
	}
	run := func(proj string) (manifests.Endpoint, []string) {
		var warnings []string
		ep := manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: proj}
		return DirectCommand(ep, func(line string) { warnings = append(warnings, line) }), warnings
	}

	own := filepath.Join(x, "own")
	must(t, os.Mkdir(own, 0o755))
	must(t, os.WriteFile(filepath.Join(own, "package.json"), []byte(`{"name":"own"}`), 0o644))
	paths := installOwn(t, own)
	if got, warnings := run(own); got.Command != paths[5] || !slices.Equal(got.Args, []string{"stdio"}) || len(warnings) > 0 {
		t.Fatalf("the user's own package: %s %q, warnings %q; want %s [stdio]", got.Command, got.Args, warnings, paths[5])
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
			got, warnings := run(proj)
			if got.Command != "npx" || !slices.Equal(got.Args, plantedArgs) {
				t.Errorf("%s %s: rewritten to %s %q, want npx as written", path, c.what, got.Command, got.Args)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], path+" "+c.what) {
				t.Errorf("%s %s: warnings %q", path, c.what, warnings)
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
// write and that is not sticky, is not started directly: whoever can write
// that directory could swap the project's node_modules between the check
// and the start. Sticky, as /tmp is, it is.
func TestDirectCommand_prefixUnderAWritableDir(t *testing.T) {
	base, _ := worldWritable(t)
	open := filepath.Join(base, "open")
	must(t, os.Mkdir(open, 0o755))
	proj := filepath.Join(open, "proj")
	must(t, os.Mkdir(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"proj"}`), 0o644))
	paths := installOwn(t, proj)
	run := func() (manifests.Endpoint, []string) {
		var warnings []string
		ep := manifests.Endpoint{ID: "everything", Command: "npx", Args: plantedArgs, Cwd: proj}
		return DirectCommand(ep, func(line string) { warnings = append(warnings, line) }), warnings
	}
	must(t, os.Chmod(open, 0o777))
	if got, warnings := run(); got.Command != "npx" || len(warnings) != 1 || !strings.Contains(warnings[0], "is under "+open+", which is writable by group or others") {
		t.Errorf("under a directory others may write: %s %q, warnings %q", got.Command, got.Args, warnings)
	}
	must(t, os.Chmod(open, 0o777|os.ModeSticky))
	if got, warnings := run(); got.Command != paths[5] || len(warnings) > 0 {
		t.Errorf("under a sticky directory: %s %q, warnings %q; want %s", got.Command, got.Args, warnings, paths[5])
	}
}
