//go:build unix

package privdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

// records is a record file in a private directory of one test.
func records(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "records")
	if err := Make(dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "record")
}

func mustRemember(t *testing.T, record, parent string) (string, string) {
	t.Helper()
	dir, warning, err := remember(record, parent, "runtime directory")
	if err != nil {
		t.Fatal(err)
	}
	return dir, warning
}

// The directory is new, of a random name, this user's and 0700, in
// parent; every later use finds the same one.
func TestRemember_reused(t *testing.T) {
	recs, parent := records(t), t.TempDir()
	dir, warning := mustRemember(t, recs, parent)
	if warning != "" || filepath.Dir(dir) != parent {
		t.Fatalf("first use: %s, warning %q; want a directory in %s and no warning", dir, warning, parent)
	}
	if filepath.Base(dir) == "mcp-"+strconv.Itoa(os.Getuid()) {
		t.Errorf("%s has a name another user could take first", dir)
	}
	if err := check(dir); err != nil {
		t.Error(err)
	}
	for range 3 {
		if again, warning := mustRemember(t, recs, parent); again != dir || warning != "" {
			t.Errorf("later use: %s, warning %q; want %s", again, warning, dir)
		}
	}
	if other, _ := mustRemember(t, records(t), parent); other == dir {
		t.Errorf("another record: %s; want a directory of its own", other)
	}
}

// A remembered directory that is gone (a cleaned /tmp) is replaced in
// silence, by one of another random name.
func TestRemember_gone(t *testing.T) {
	recs, parent := records(t), t.TempDir()
	dir, _ := mustRemember(t, recs, parent)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	again, warning := mustRemember(t, recs, parent)
	if again == dir || warning != "" || check(again) != nil {
		t.Errorf("after removal: %s, warning %q; want a new directory, no warning", again, warning)
	}
}

// A remembered directory replaced by one that is not this user's alone
// is left as it is; a new one is made, with one warning, and used after.
func TestRemember_replaced(t *testing.T) {
	other := localuser.New(t)
	theirs := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	other.Chown(t, theirs)
	for name, replace := range map[string]func(string) error{
		"theirs": func(dir string) error {
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			return os.Lchown(dir, other.UID, other.GID)
		},
		"a symlink": func(dir string) error { return os.Symlink(theirs, dir) },
		"open": func(dir string) error {
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			return os.Chmod(dir, 0o777)
		},
	} {
		t.Run(name, func(t *testing.T) {
			recs, parent := records(t), t.TempDir()
			dir, _ := mustRemember(t, recs, parent)
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := replace(dir); err != nil {
				t.Fatal(err)
			}
			fresh, warning := mustRemember(t, recs, parent)
			if fresh == dir || check(fresh) != nil {
				t.Errorf("after %s replaced it: %s, want a new private directory", name, fresh)
			}
			if !strings.HasPrefix(warning, "using a new runtime directory, "+fresh+": "+dir+" ") {
				t.Errorf("warning %q", warning)
			}
			if again, warning := mustRemember(t, recs, parent); again != fresh || warning != "" {
				t.Errorf("the next use: %s, warning %q; want %s, no warning", again, warning, fresh)
			}
		})
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("the other user's directory holds %v", entries)
	}
	if st, _ := os.Stat(theirs); st.Mode().Perm() != 0o755 {
		t.Errorf("the other user's directory became %v", st.Mode().Perm())
	}
}

// Two first uses at once agree on one directory.
func TestRemember_concurrent(t *testing.T) {
	recs, parent := records(t), t.TempDir()
	const n = 20
	dirs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d, _, err := remember(recs, parent, "runtime directory")
			if err != nil {
				t.Error(err)
			}
			dirs[i] = d
		})
	}
	wg.Wait()
	for _, d := range dirs {
		if d != dirs[0] {
			t.Fatalf("concurrent first uses got %v", dirs)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("%d directories made for one", len(entries))
	}
}

func TestRemember_relative(t *testing.T) {
	if dir, _, err := remember(records(t), "tmp", "runtime directory"); err == nil {
		t.Errorf("a relative parent gave %s", dir)
	}
}

// With XDG_RUNTIME_DIR an absolute path, the runtime directory is
// $XDG_RUNTIME_DIR/mcp; else it is remembered in the cache directory.
func TestRuntime(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	if dir, err := Runtime(); err != nil || dir != filepath.Join(run, "mcp") {
		t.Errorf("Runtime with XDG_RUNTIME_DIR = %s, %v", dir, err)
	}
	if Parent() != run {
		t.Errorf("Parent with XDG_RUNTIME_DIR = %s", Parent())
	}
	tmp, cache := t.TempDir(), t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "relative")
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_CACHE_HOME", cache)
	dir, err := Runtime()
	if err != nil || filepath.Dir(dir) != tmp {
		t.Errorf("Runtime without XDG_RUNTIME_DIR = %s, %v; want a directory in %s", dir, err, tmp)
	}
	if Parent() != tmp {
		t.Errorf("Parent without XDG_RUNTIME_DIR = %s", Parent())
	}
	if err := check(filepath.Join(cache, "mcp", "runtime")); err != nil {
		t.Errorf("the records' directory: %v", err)
	}
}

// Where no cache directory can be found or made private, Runtime fails
// and says why.
func TestRuntime_noCache(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	var nr *NoRecordError
	if dir, err := Runtime(); !errors.As(err, &nr) {
		t.Errorf("no HOME: %s, %v", dir, err)
	}
	other := localuser.New(t)
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.MkdirAll(filepath.Join(cache, "mcp", "runtime"), 0o700); err != nil {
		t.Fatal(err)
	}
	other.Chown(t, filepath.Join(cache, "mcp", "runtime"))
	t.Setenv("XDG_CACHE_HOME", cache)
	if dir, err := Runtime(); !errors.As(err, &nr) || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("another user's cache directory: %s, %v", dir, err)
	}
}

// The warning reaches the hook once.
func TestRuntime_warns(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	var heard []string
	OnWarning(func(line string) { heard = append(heard, line) })
	t.Cleanup(func() { OnWarning(nil) })
	dir, err := Runtime()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := Runtime(); err != nil {
			t.Fatal(err)
		}
	}
	if len(heard) != 1 || !strings.HasPrefix(heard[0], "using a new runtime directory, ") || !strings.Contains(heard[0], dir+" may be used by other users") {
		t.Errorf("heard %q", heard)
	}
}

// Short's directory is in /tmp, remembered in the runtime directory it
// stands in for.
func TestShort(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("x", 80))
	if err := Make(long); err != nil {
		t.Fatal(err)
	}
	short, err := Short(long)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	if filepath.Dir(short) != "/tmp" || check(short) != nil {
		t.Errorf("Short = %s, want a private directory in /tmp", short)
	}
	if data, _ := os.ReadFile(filepath.Join(long, ShortRecord)); string(data) != short+"\n" {
		t.Errorf("the record holds %q", data)
	}
	if again, err := Short(long); err != nil || again != short {
		t.Errorf("Short again = %s, %v; want %s", again, err, short)
	}
}
