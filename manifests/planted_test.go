//go:build linux

package manifests

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

// sharedWork makes a directory of the given mode that everyone may write,
// and in it work, a directory of the user's own; it returns both.
func sharedWork(t *testing.T, mode os.FileMode) (shared, work string) {
	t.Helper()
	shared = filepath.Join(t.TempDir(), "x")
	work = filepath.Join(shared, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	chmod(t, shared, mode)
	return shared, work
}

const plantedPkg = `{"pi": {"mcp": {"manifests": ["planted.json"], "servers": [{"id": "planted", "tools": {"include": ["*"]}}]}}}`

// A package.json another user planted above the working directory is
// passed over, sticky directory or not, whatever it holds (a recipe, not
// JSON at all, or no pi.mcp): it is not read, so one warning says so.
func TestFindRoot_PlantedPackageJSON(t *testing.T) {
	s := localuser.New(t)
	for _, mode := range []os.FileMode{0o777 | os.ModeSticky, 0o777} {
		for _, tc := range []struct{ name, data string }{
			{"recipe", plantedPkg},
			{"not json", "{ not json"},
			{"no pi.mcp", `{"name": "planted"}`},
		} {
			t.Run(mode.String()+"/"+tc.name, func(t *testing.T) {
				shared, work := sharedWork(t, mode)
				pkg := filepath.Join(shared, "package.json")
				s.WriteFile(t, pkg, tc.data)
				loc, err := Locate(work)
				if err != nil || !loc.User || loc.Root != work {
					t.Fatalf("Locate = %+v, %v; want the user's own configuration in %s", loc, err, work)
				}
				want := []string{pkg + ": passed over: it is owned by " + s.Owner() + ", not by you or root"}
				if !slices.Equal(loc.PassedOver, want) {
					t.Errorf("passed over %q, want %q", loc.PassedOver, want)
				}
			})
		}
	}
}

// A symlink another user made in a sticky directory is theirs, wherever it
// leads: even to the user's own recipe.
func TestFindRoot_PlantedSymlink(t *testing.T) {
	s := localuser.New(t)
	shared, work := sharedWork(t, 0o777|os.ModeSticky)
	own := newRecipe(t, map[string]string{"package.json": plantedPkg})
	link := filepath.Join(shared, "package.json")
	if err := os.Symlink(filepath.Join(own, "package.json"), link); err != nil {
		t.Fatal(err)
	}
	s.Chown(t, link)
	loc, err := Locate(work)
	want := []string{link + ": passed over: it is a symlink owned by " + s.Owner() + ", not by you or root"}
	if err != nil || !loc.User || !slices.Equal(loc.PassedOver, want) {
		t.Errorf("Locate = %+v, %v; want the user's own configuration, passed over %q", loc, err, want)
	}
}

// The user's own recipe under a directory another user owns could be
// renamed away and replaced: it is passed over.
func TestFindRoot_UnderAnotherUsersDir(t *testing.T) {
	s := localuser.New(t)
	theirs := filepath.Join(t.TempDir(), "theirs")
	root := filepath.Join(theirs, "recipe")
	writeTree(t, root, map[string]string{"package.json": plantedPkg})
	s.Chown(t, theirs)
	loc, err := Locate(root)
	want := []string{filepath.Join(root, "package.json") + ": passed over: it is under " + theirs + ", which is owned by " + s.Owner() + ", not by you or root"}
	if err != nil || !loc.User || !slices.Equal(loc.PassedOver, want) {
		t.Errorf("Locate = %+v, %v; want passed over %q", loc, err, want)
	}
}

// The user's own package.json is a recipe when nobody else could have
// written or swapped it; a malformed one of theirs is still an error.
func TestFindRoot_OwnPackageJSON(t *testing.T) {
	sticky, stickyWork := sharedWork(t, 0o777|os.ModeSticky)
	writeTree(t, sticky, map[string]string{"package.json": plantedPkg})
	if loc, err := Locate(stickyWork); err != nil || loc.User || loc.Root != sticky || loc.PassedOver != nil {
		t.Errorf("in a sticky directory: %+v, %v; want the recipe %s", loc, err, sticky)
	}

	open, openWork := sharedWork(t, 0o777)
	writeTree(t, open, map[string]string{"package.json": plantedPkg})
	want := []string{filepath.Join(open, "package.json") + ": passed over: it is in " + open + ", which is writable by group or others (chmod go-w fixes that)"}
	if loc, err := Locate(openWork); err != nil || !loc.User || !slices.Equal(loc.PassedOver, want) {
		t.Errorf("in a directory others can write: %+v, %v; want passed over %q", loc, err, want)
	}

	root := newRecipe(t, map[string]string{"package.json": plantedPkg})
	chmod(t, filepath.Join(root, "package.json"), 0o664)
	want = []string{filepath.Join(root, "package.json") + ": passed over: it is writable by group or others (chmod go-w fixes that)"}
	if loc, err := Locate(root); err != nil || !loc.User || !slices.Equal(loc.PassedOver, want) {
		t.Errorf("group-writable: %+v, %v; want passed over %q", loc, err, want)
	}

	broken := newRecipe(t, map[string]string{"package.json": "{ not json"})
	if _, err := Locate(broken); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("the user's own malformed package.json: %v, want an error", err)
	}
}

// An editor configuration another user planted in the working directory
// is ignored, with a warning, and keeps the directory from being trusted:
// Trust refuses it, naming the file and its owner, and records nothing.
func TestLoadUser_PlantedProjectFile(t *testing.T) {
	store := trustHome(t)
	s := localuser.New(t)
	shared, _ := sharedWork(t, 0o777|os.ModeSticky)
	s.WriteFile(t, filepath.Join(shared, ".mcp.json"), `{"mcpServers": {"planted": {"command": "p"}}}`)
	r, err := Read(shared, true)
	if err != nil {
		t.Fatal(err)
	}
	want := ".mcp.json: ignored: it is owned by " + s.Owner() + ", not by you or root"
	if _, read := r.Endpoints["planted"]; read || !slices.Equal(r.Warnings, []string{want}) {
		t.Errorf("endpoints %v, warnings %q; want none, and %q", r.Endpoints, r.Warnings, want)
	}
	_, err = Trust(shared, true)
	var ue *UnsafeError
	if !errors.As(err, &ue) || exit.Code(err) != exit.Config ||
		err.Error() != "cannot trust "+resolveDir(shared)+": .mcp.json is owned by "+s.Owner()+", not by you or root" {
		t.Errorf("Trust: %v (exit %d)", err, exit.Code(err))
	}
	if _, err := os.Stat(store); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the trust store was written: %v", err)
	}
}

// The user's own file in a directory below one others can write (not
// sticky) is ignored too: the directory could have been swapped.
func TestLoadUser_UnderWritableDir(t *testing.T) {
	trustHome(t)
	shared, work := sharedWork(t, 0o777)
	writeTree(t, work, map[string]string{".mcp.json": `{"mcpServers": {"mine": {"command": "m"}}}`})
	r, err := Read(work, true)
	if err != nil {
		t.Fatal(err)
	}
	why := "is under " + shared + ", which is writable by group or others (chmod go-w fixes that)"
	if _, read := r.Endpoints["mine"]; read || !slices.Equal(r.Warnings, []string{".mcp.json: ignored: it " + why}) {
		t.Errorf("endpoints %v, warnings %q", r.Endpoints, r.Warnings)
	}
	if _, err := Trust(work, true); err == nil || err.Error() != "cannot trust "+work+": .mcp.json "+why {
		t.Errorf("Trust: %v", err)
	}
}

// A recipe file another user owns is not read: Load says so, an error of
// the configuration, with the recipe's servers gone; Trust refuses it,
// and a directory trusted before becomes untrusted, its file named as
// changed.
func TestTrust_PlantedRecipeFile(t *testing.T) {
	trustHome(t)
	s := localuser.New(t)
	root := trustRecipe(t)
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	s.Chown(t, filepath.Join(root, "mcp.json"))

	why := "mcp.json is owned by " + s.Owner() + ", not by you or root"
	_, err := Load(root)
	if err == nil || exit.Code(err) != exit.Config || !strings.HasPrefix(err.Error(), "mcp.json: is owned by "+s.Owner()+", not by you or root") {
		t.Errorf("Load: %v (exit %d)", err, exit.Code(err))
	}
	if _, err := Trust(root, false); err == nil || err.Error() != "cannot trust "+resolveDir(root)+": "+why {
		t.Errorf("Trust: %v", err)
	}
	list, err := TrustList()
	if err != nil || len(list) != 1 || list[0].State != "changed" || !slices.Equal(list[0].Changed, []string{"mcp.json"}) {
		t.Errorf("TrustList: %+v, %v", list, err)
	}
}

// A trust store whose directory really is another user's (they could swap
// trust.json in it) trusts nothing, and is not written.
func TestTrustStore_DirOfStranger(t *testing.T) {
	store := trustHome(t)
	s := localuser.New(t)
	root := trustRecipe(t)
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	s.Chown(t, filepath.Dir(store))
	checkUnusable(t, store, root, "is in "+filepath.Dir(store)+", which is not owned by the current user")
}

// A script the recipe runs that another user owns is theirs to change at
// any time: the recipe cannot be trusted while it runs it.
func TestTrust_PlantedScript(t *testing.T) {
	trustHome(t)
	s := localuser.New(t)
	root, _ := scriptsRecipe(t)
	s.Chown(t, filepath.Join(root, "server.sh"))
	why := "server.sh is owned by " + s.Owner() + ", not by you or root"
	r := mustLoad(t, root, false)
	if got := r.Endpoints["sh"].Refusal(); got == nil || !strings.HasSuffix(got.Error(), "which cannot be trusted: "+why) {
		t.Errorf("refusal %v", got)
	}
	if _, err := Trust(root, false); err == nil || err.Error() != "cannot trust "+resolveDir(root)+": "+why {
		t.Errorf("Trust: %v", err)
	}
}
