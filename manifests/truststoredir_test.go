package manifests

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The trust store's directory is checked like the store: one that others
// can write (they could swap trust.json), or one below a directory others
// can write without the sticky bit, trusts nothing, says so in one
// warning, and is not written.
func TestTrustStore_UnusableDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		return // no Unix owners or permission bits there
	}
	cases := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		why   func(dir string) string
	}{
		{"world-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o777) },
			func(dir string) string {
				return "is in " + dir + ", which is writable by group or others (chmod go-w fixes that)"
			}},
		{"group-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o770) },
			func(dir string) string {
				return "is in " + dir + ", which is writable by group or others (chmod go-w fixes that)"
			}},
		{"sticky and world-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o777|os.ModeSticky) },
			func(dir string) string {
				return "is in " + dir + ", which is writable by group or others (chmod go-w fixes that)"
			}},
		{"someone else's", func(t *testing.T, dir string) { giveAway(t, filepath.Base(dir)) },
			func(dir string) string { return "is in " + dir + ", which is not owned by the current user" }},
		{"below a directory others can write", func(t *testing.T, dir string) { chmod(t, filepath.Dir(dir), 0o777) },
			func(dir string) string {
				return "is under " + filepath.Dir(dir) + ", which is writable by group or others (chmod go-w fixes that)"
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := trustHome(t)
			root := trustRecipe(t)
			if _, err := Trust(root, false); err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, filepath.Dir(store))
			checkUnusable(t, store, root, tc.why(filepath.Dir(store)))
		})
	}
}

// A store directory that is a symlink to a directory of the user's own is
// as good as that directory.
func TestTrustStore_SymlinkedDir(t *testing.T) {
	store := trustHome(t)
	real := filepath.Join(t.TempDir(), "mcp")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(store)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Dir(store)); err != nil {
		t.Fatal(err)
	}
	root := trustRecipe(t)
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	mustLoadQuiet(t, root)
	mustLoad(t, root, true)
}
