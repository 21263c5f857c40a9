package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func wantProblem(t *testing.T, err error, kind Kind, problem string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind != kind || e.Problem != problem {
		t.Fatalf("error %v (%#v), want kind %d, %q", err, e, kind, problem)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	write(t, path, "{}", 0o600)
	if data, err := Read(path, 10); err != nil || string(data) != "{}" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("f.json", link); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(link, 10); err != nil || string(data) != "{}" {
		t.Errorf("through the user's own symlink: %q, %v", data, err)
	}
	_, err := Options{NoSymlink: true}.Read(link)
	wantProblem(t, err, NotRegular, "is a symlink")

	_, err = Read(path, 1)
	wantProblem(t, err, TooLarge, "is larger than 1 bytes")

	_, err = Read(filepath.Join(dir, "missing"), 10)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
	_, err = Read(dir, 10)
	wantProblem(t, err, NotRegular, "is not a regular file (a directory)")
}

func TestRead_linkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink("b", a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", b); err != nil {
		t.Fatal(err)
	}
	_, err := Read(a, 10)
	wantProblem(t, err, NotRegular, "is a chain of more than 40 symlinks")
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 20: "64 MiB", 256 << 10: "256 KiB", 300: "300 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestError(t *testing.T) {
	e := &Error{Path: "p", Problem: "is a symlink"}
	if e.Error() != "p is a symlink" || e.ExitCode() != 5 || !strings.HasPrefix(e.Error(), "p ") {
		t.Errorf("%q exit %d", e.Error(), e.ExitCode())
	}
}
