//go:build unix

package privdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is a user other than the one running the tests; only root can
// give a directory to it.
const nobody = 65534

func TestMake(t *testing.T) {
	tmp := t.TempDir()
	fresh := filepath.Join(tmp, "a", "b")
	if err := Make(fresh); err != nil {
		t.Fatalf("Make(new): %v", err)
	}
	if st, _ := os.Lstat(fresh); st.Mode().Perm() != 0o700 {
		t.Errorf("new directory mode %v, want 0700", st.Mode().Perm())
	}
	if err := Make(fresh); err != nil {
		t.Errorf("Make(existing): %v", err)
	}

	loose := filepath.Join(tmp, "loose")
	if err := os.Mkdir(loose, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := Make(loose); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Errorf("Make(0777 dir) = %v, want a refusal", err)
	}

	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Make(file); err == nil {
		t.Error("Make(a file) worked")
	}
}

// A symlink another user planted where the private directory belongs is
// refused, and the directory it points to is left as it was: the old
// saved-output directory ran chmod through it and saved outputs into a
// directory another user controls.
func TestMake_plantedSymlink(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test gives a directory to another user, which needs root (CI runs as root)")
	}
	tmp := t.TempDir()
	theirs := filepath.Join(tmp, "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(tmp, "mcp")
	if err := os.Symlink(theirs, planted); err != nil {
		t.Fatal(err)
	}
	if err := Make(planted); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Make(planted symlink) = %v, want a refusal", err)
	}
	if st, _ := os.Stat(theirs); st.Mode().Perm() != 0o755 {
		t.Errorf("the other user's directory became %v", st.Mode().Perm())
	}

	// Their own directory, not a link, is refused too.
	if err := os.Remove(planted); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(planted, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := Make(planted); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("Make(another user's directory) = %v, want a refusal", err)
	}
}
