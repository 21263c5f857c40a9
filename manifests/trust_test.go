package manifests

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// trustHome points the trust store (and the home directory) at fresh
// directories of the test, and returns the store's path.
func trustHome(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	if err := os.MkdirAll(filepath.Join(base, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	store, err := TrustStorePath()
	if err != nil {
		t.Fatal(err)
	}
	return store
}

const trustPkg = `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "contacts", "tools": {"include": ["*"]}}, {"id": "memory", "tools": {"include": ["*"]}}]}}}`

func trustRecipe(t *testing.T) string {
	t.Helper()
	return newRecipe(t, map[string]string{
		"package.json":      trustPkg,
		"mcp.json":          `{"mcpServers": {"contacts": {"command": "c"}, "memory": {"command": "m"}, "spare": {"command": "s"}}}`,
		"agents/reader.yml": "mcp:\n  servers:\n    contacts:\n      include: [\"*\"]\n",
	})
}

// mustLoad loads root and checks whether its endpoints may start.
func mustLoad(t *testing.T, root string, trusted bool, changed ...string) *Recipe {
	t.Helper()
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trust.Trusted != trusted || !slices.Equal(r.Trust.Changed, changed) {
		t.Fatalf("trust %+v, want trusted %v, changed %q", r.Trust, trusted, changed)
	}
	for id, ep := range r.Endpoints {
		err := ep.Refusal()
		var u *UntrustedError
		switch {
		case trusted && err != nil:
			t.Errorf("%s refused in a trusted recipe: %v", id, err)
		case !trusted && !errors.As(err, &u):
			t.Errorf("%s may start in an untrusted recipe", id)
		case !trusted && (u.Dir != resolveDir(root) || u.Server != ep.ID || !slices.Equal(u.Changed, changed)):
			t.Errorf("%s refused with %+v", id, u)
		}
	}
	return r
}

func TestTrust_Recipe(t *testing.T) {
	store := trustHome(t)
	root := trustRecipe(t)
	r := mustLoad(t, root, false)
	if !r.Trust.Needed || !slices.Equal(r.Trust.Servers, []string{"contacts", "memory"}) {
		t.Errorf("trust %+v: want it needed, for the two servers of the boundary", r.Trust)
	}
	if got := r.Endpoints["contacts"].Refusal().Error(); got != "server contacts comes from "+resolveDir(root)+", which you have not trusted" {
		t.Errorf("refusal %q", got)
	}
	if _, err := os.Stat(store); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("loading wrote the trust store: %v", err)
	}

	tr, err := Trust(root, false)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{}
	for _, f := range tr.Trust.Files {
		files = append(files, f.Path)
	}
	if !slices.Equal(files, []string{"mcp.json", "package.json"}) || !tr.Trust.Trusted || tr.Trust.Since.IsZero() {
		t.Errorf("Trust: %+v", tr.Trust)
	}
	r = mustLoad(t, root, true)
	if fi, err := os.Stat(store); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust store: %v, mode %v; want 0600", err, fi.Mode())
	}
	if fi, err := os.Stat(filepath.Dir(store)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("trust store's directory: %v, mode %v; want 0700", err, fi.Mode())
	}
	if !slices.Contains(r.Files, store) || !slices.Contains(r.Files, filepath.Dir(store)) {
		t.Errorf("the trust store is not watched: %q", r.Files)
	}

	// An agent only narrows: editing one keeps the trust.
	writeTree(t, root, map[string]string{"agents/reader.yml": "mcp:\n  servers:\n    memory:\n      include: [\"*\"]\n"})
	mustLoad(t, root, true)
	// A changed manifest, a new local binding: untrusted again, saying which.
	writeTree(t, root, map[string]string{"mcp.json": `{"mcpServers": {"contacts": {"command": "evil"}, "memory": {"command": "m"}}}`})
	mustLoad(t, root, false, "mcp.json")
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{".pi/mcp.local.json": `{"mcpServers": {"memory": {"command": "mine"}}}`})
	r = mustLoad(t, root, false, ".pi/mcp.local.json")
	if got := r.Endpoints["memory"].Refusal().Error(); !strings.HasSuffix(got, "which changed since you trusted it (.pi/mcp.local.json)") {
		t.Errorf("refusal %q", got)
	}
	if err := os.Remove(filepath.Join(root, ".pi", "mcp.local.json")); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, root, true) // the files are as they were trusted
	writeTree(t, root, map[string]string{"package.json": trustPkg + "\n"})
	mustLoad(t, root, false, "package.json")
}

// Trust is kept for the directory with symlinks resolved: the recipe is
// the same however it is reached.
func TestTrust_SymlinkedDir(t *testing.T) {
	trustHome(t)
	root := trustRecipe(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(link, false); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, root, true)
	mustLoad(t, link, true)
}

// A recipe with problems is not trusted, and nothing is recorded.
func TestTrust_InvalidRecipe(t *testing.T) {
	store := trustHome(t)
	root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{"manifests": ["missing.json"]}`)})
	if _, err := Trust(root, false); err == nil {
		t.Fatal("trusted a recipe whose manifest is missing")
	}
	if _, err := os.Stat(store); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the trust store was written: %v", err)
	}
}

func TestTrust_UserProjectFiles(t *testing.T) {
	trustHome(t)
	home := os.Getenv("HOME")
	cwd := t.TempDir()
	writeTree(t, home, map[string]string{".pi/agent/mcp.json": `{"mcpServers": {"own": {"command": "o"}, "both": {"command": "o"}}}`})
	writeTree(t, cwd, map[string]string{
		".mcp.json":        `{"mcpServers": {"proj": {"command": "p"}}}`,
		".vscode/mcp.json": `{"servers": {"both": {"command": "p"}}}`,
	})
	// .vscode is read before the home file: "both" is the user's own.
	r, err := Read(cwd, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Endpoints["own"].Refusal() != nil || r.Endpoints["both"].Refusal() != nil {
		t.Error("a server of the user's own file is refused")
	}
	if r.Endpoints["proj"].Refusal() == nil || r.Trust.Trusted || !slices.Equal(r.Trust.Servers, []string{"proj"}) {
		t.Errorf("the project's .mcp.json may start untrusted: %+v", r.Trust)
	}
	writeTree(t, cwd, map[string]string{".pi/mcp.json": `{"mcpServers": {"own": {"command": "p"}}}`})
	if r, _ = Read(cwd, true); r.Endpoints["own"].Refusal() == nil {
		t.Error("a project entry that replaces the user's own may start untrusted")
	}
	if _, err := Trust(cwd, true); err != nil {
		t.Fatal(err)
	}
	if r, _ = Read(cwd, true); !r.Trust.Trusted || r.Endpoints["proj"].Refusal() != nil || len(r.Trust.Files) != 3 {
		t.Errorf("after trust: %+v", r.Trust)
	}
	writeTree(t, cwd, map[string]string{".vscode/mcp.json": `{"servers": {"both": {"command": "q"}}}`})
	if r, _ = Read(cwd, true); r.Trust.Trusted || !slices.Equal(r.Trust.Changed, []string{".vscode/mcp.json"}) {
		t.Errorf("after an edit: %+v", r.Trust)
	}
}

// The files of the home directory are the user's own, also when it is the
// working directory; a directory without project files needs no trust.
func TestTrust_NotNeeded(t *testing.T) {
	store := trustHome(t)
	home := os.Getenv("HOME")
	writeTree(t, home, map[string]string{".mcp.json": `{"mcpServers": {"proj": {"command": "p"}}}`})
	r, err := Trust(home, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trust.Needed || !r.Trust.Home || r.Endpoints["proj"].Refusal() != nil {
		t.Errorf("home: %+v", r.Trust)
	}
	if r, err = Trust(t.TempDir(), true); err != nil || r.Trust.Needed || r.Trust.Home {
		t.Errorf("empty directory: %+v, %v", r.Trust, err)
	}
	if _, err := os.Stat(store); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the trust store was written: %v", err)
	}
}

func TestTrust_ListAndForget(t *testing.T) {
	trustHome(t)
	if list, err := TrustList(); err != nil || len(list) != 0 {
		t.Fatalf("empty store: %v, %v", list, err)
	}
	ok, changed, gone := trustRecipe(t), trustRecipe(t), trustRecipe(t)
	for _, d := range []string{ok, changed, gone} {
		if _, err := Trust(d, false); err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, changed, map[string]string{"mcp.json": `{"mcpServers": {}}`, ".pi/mcp.local.json": `{"mcpServers": {}}`})
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	list, err := TrustList()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{resolveDir(ok): "ok", resolveDir(changed): "changed .pi/mcp.local.json,mcp.json", gone: "gone"}
	for _, d := range list {
		got := d.State
		if len(d.Changed) > 0 {
			got += " " + strings.Join(d.Changed, ",")
		}
		if want[d.Dir] != got || d.Trusted.IsZero() {
			t.Errorf("%s: %q at %v, want %q", d.Dir, got, d.Trusted, want[d.Dir])
		}
	}
	if len(list) != 3 {
		t.Errorf("%d entries, want 3", len(list))
	}

	// Forget takes the directory, a directory inside the recipe, or a
	// directory that is gone.
	sub := filepath.Join(ok, "agents")
	if got, err := Forget(sub); err != nil || got != resolveDir(ok) {
		t.Errorf("Forget(inside the recipe) = %q, %v", got, err)
	}
	mustLoad(t, ok, false)
	if got, err := Forget(gone); err != nil || got != gone {
		t.Errorf("Forget(gone) = %q, %v", got, err)
	}
	if got, err := Forget(ok); err != nil || got != "" {
		t.Errorf("Forget(not trusted) = %q, %v", got, err)
	}
	if list, _ := TrustList(); len(list) != 1 || list[0].Dir != resolveDir(changed) {
		t.Errorf("after forgetting: %+v", list)
	}
}
