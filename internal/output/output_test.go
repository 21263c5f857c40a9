//go:build unix

package output

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Outputs never land in a directory another user controls: a symlink
// planted where a predictable private directory would be changes nothing,
// and nothing is written or changed through it.
func TestSave_plantedSymlink(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test gives a directory to another user, which needs root (CI runs as root)")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	theirs := filepath.Join(tmp, "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(theirs, filepath.Join(tmp, "mcp-"+strconv.Itoa(os.Getuid()))); err != nil {
		t.Fatal(err)
	}
	path, err := Save("s.t", ".txt", []byte("secret"))
	if err != nil {
		t.Errorf("Save: %v", err)
	} else if filepath.Dir(filepath.Dir(path)) != tmp {
		t.Errorf("Save wrote %s, not in a directory of its own in %s", path, tmp)
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("the other user's directory holds %d files", len(entries))
	}
	if st, _ := os.Stat(theirs); st.Mode().Perm() != 0o755 {
		t.Errorf("the other user's directory became %v", st.Mode().Perm())
	}
}

// With XDG_RUNTIME_DIR set, outputs are kept there, like the sockets.
func TestDir_runtime(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(run, "mcp") {
		t.Errorf("Dir = %s, want under %s", dir, run)
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[string]Size{"50KB": 50000, "2MB": 2000000, "1KiB": 1024, "4096": 4096} {
		var s Size
		if err := s.UnmarshalText([]byte(in)); err != nil || s != want {
			t.Errorf("%s = %d, %v; want %d", in, s, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1KB", "1.5MB", "lots"} {
		var s Size
		if err := s.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q accepted as %d", bad, s)
		}
	}
}
