package manifests

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

const scriptsPkg = `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "sh", "tools": {"include": ["*"]}}, {"id": "node", "tools": {"include": ["*"]}}]}}}`

// scriptsRecipe is a recipe whose servers run files of its own by
// relative path, and name others that trust does not cover: a missing
// file, one outside the recipe, one behind ${VAR}, a bare name found on
// PATH, a directory.
func scriptsRecipe(t *testing.T) (root, outside string) {
	t.Helper()
	outside = filepath.Join(t.TempDir(), "outside.js")
	writeTree(t, filepath.Dir(outside), map[string]string{"outside.js": "elsewhere"})
	root = newRecipe(t, map[string]string{
		"package.json": scriptsPkg,
		"mcp.json": `{"mcpServers": {
			"sh": {"command": "./server.sh", "args": ["--port", "0"]},
			"node": {"command": "node", "args": ["server.js", "missing.js", "` + outside + `", "../x.js", "${HOME}/y.js", "lib"], "cwd": "srv"},
			"py": {"command": "server.py", "args": ["${SCRIPT:-srv/server.js}"]}
		}}`,
		"server.sh":     "#!/bin/sh\nexec real-server\n",
		"srv/server.js": "console.log('serving')\n",
		"srv/lib/a.js":  "",
		"server.py":     "print('on PATH, not here')\n",
	})
	return root, outside
}

// The files a trusted manifest runs by a path inside the recipe are in its
// digest: mcp trust records them, and one changed after it makes the
// recipe untrusted again, that file named.
func TestTrust_RelativeScripts(t *testing.T) {
	trustHome(t)
	root, _ := scriptsRecipe(t)
	r, err := Trust(root, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Trust.Files {
		got = append(got, f.Path)
	}
	if want := []string{"mcp.json", "package.json", "server.sh", "srv/server.js"}; !slices.Equal(got, want) {
		t.Errorf("trusted files %q, want %q", got, want)
	}
	if !slices.Contains(r.Files, filepath.Join(root, "server.sh")) || !slices.Contains(r.Files, filepath.Join(root, "srv", "server.js")) {
		t.Errorf("the scripts are not watched: %q", r.Files)
	}
	mustLoad(t, root, true)

	writeTree(t, root, map[string]string{"server.sh": "#!/bin/sh\necho pwned\n"})
	r = mustLoad(t, root, false, "server.sh")
	if got := r.Endpoints["sh"].Refusal().Error(); !strings.HasSuffix(got, "which changed since you trusted it (server.sh)") {
		t.Errorf("refusal %q", got)
	}
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"srv/server.js": "process.exit(1)\n"})
	mustLoad(t, root, false, "srv/server.js")
	if list, err := TrustList(); err != nil || len(list) != 1 || !slices.Equal(list[0].Changed, []string{"srv/server.js"}) {
		t.Errorf("TrustList: %+v, %v", list, err)
	}
}

// A store written before trust covered scripts holds the recipe's
// configuration files only: that entry is not enough, and the script it
// lacks is named as changed.
func TestTrust_EntryWithoutScripts(t *testing.T) {
	store := trustHome(t)
	root, _ := scriptsRecipe(t)
	r := mustLoad(t, root, false)
	var old []TrustedFile
	for _, f := range r.Trust.Files {
		if f.Path == "mcp.json" || f.Path == "package.json" {
			old = append(old, f)
		}
	}
	e := trustEntry{Dir: resolveDir(root), Digest: Digest(old), Files: old, Trusted: time.Now().UTC().Truncate(time.Second)}
	if err := editTrustStore(store, func(s *trustStore) bool { s.Dirs = append(s.Dirs, e); return true }); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, root, false, "server.sh", "srv/server.js")
	list, err := TrustList()
	if err != nil || len(list) != 1 || list[0].State != "changed" || !slices.Equal(list[0].Changed, []string{"server.sh", "srv/server.js"}) {
		t.Errorf("TrustList: %+v, %v", list, err)
	}
}

// A script that others can write could change between its digest and its
// start: the recipe cannot be trusted. Nor can one whose script is larger
// than trust digests.
func TestTrust_ScriptsThatCannotBeTrusted(t *testing.T) {
	if runtime.GOOS == "windows" {
		return // no Unix permission bits there
	}
	trustHome(t)
	root, _ := scriptsRecipe(t)
	chmod(t, filepath.Join(root, "server.sh"), 0o666)
	if _, err := Trust(root, false); err == nil ||
		err.Error() != "cannot trust "+resolveDir(root)+": server.sh is writable by group or others (chmod go-w fixes that)" {
		t.Errorf("Trust with a world-writable script: %v", err)
	}
	chmod(t, filepath.Join(root, "server.sh"), 0o755)

	big := filepath.Join(root, "srv", "server.js")
	if err := os.Truncate(big, maxScriptSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(root, false); err == nil ||
		err.Error() != "cannot trust "+resolveDir(root)+": srv/server.js is larger than 64 MiB, the most mcp trust digests" {
		t.Errorf("Trust with a script over the bound: %v", err)
	}
	if err := os.Truncate(big, maxScriptSize); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(root, false); err != nil {
		t.Errorf("Trust with a script at the bound: %v", err)
	}
}

// Outside a recipe, the working directory's editor configurations are
// covered the same way; the home directory's need no trust, and their
// scripts none either.
func TestTrust_UserScripts(t *testing.T) {
	trustHome(t)
	cwd := t.TempDir()
	writeTree(t, cwd, map[string]string{
		".mcp.json":        `{"mcpServers": {"proj": {"command": "./run.sh"}}}`,
		".vscode/mcp.json": `{"servers": {"vs": {"command": "./tool"}}}`,
		"run.sh":           "#!/bin/sh\n",
		".vscode/tool":     "#!/bin/sh\n",
	})
	r, err := Trust(cwd, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Trust.Files {
		got = append(got, f.Path)
	}
	if want := []string{".mcp.json", ".vscode/mcp.json", ".vscode/tool", "run.sh"}; !slices.Equal(got, want) {
		t.Errorf("trusted files %q, want %q", got, want)
	}
	writeTree(t, cwd, map[string]string{"run.sh": "#!/bin/sh\necho changed\n"})
	if r, _ = Read(cwd, true); r.Trust.Trusted || !slices.Equal(r.Trust.Changed, []string{"run.sh"}) {
		t.Errorf("after the script changed: %+v", r.Trust)
	}

	home := os.Getenv("HOME")
	writeTree(t, home, map[string]string{".mcp.json": `{"mcpServers": {"own": {"command": "./own.sh"}}}`, "own.sh": ""})
	if r, err = Read(home, true); err != nil || r.Trust.Needed || len(r.Trust.Files) != 1 {
		t.Errorf("home: %+v, %v", r.Trust, err)
	}
}
