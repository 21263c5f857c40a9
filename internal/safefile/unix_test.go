//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused before it is opened: opening it for reading would
// wait for a writer that never comes.
func TestRead_FIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "package.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(path, 10); done <- err }()
	select {
	case err := <-done:
		wantProblem(t, err, NotRegular, "is not a regular file (a named pipe)")
	case <-time.After(5 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}
}

func TestRead_device(t *testing.T) {
	link := filepath.Join(t.TempDir(), "zero.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	_, err := Read(link, 10)
	wantProblem(t, err, NotRegular, "is not a regular file (a device)")
}

func TestRead_modes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	write(t, path, "x", 0o620)
	_, err := Read(path, 10)
	wantProblem(t, err, Unsafe, "is writable by group or others (chmod go-w fixes that)")

	write(t, path, "x", 0o640)
	if _, err := Read(path, 10); err != nil {
		t.Errorf("mode 0640: %v", err)
	}
	_, err = Options{Private: true}.Read(path)
	wantProblem(t, err, Unsafe, "is readable by group or others (chmod go-rwx fixes that)")

	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(open, "f"), "x", 0o600)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err = Read(filepath.Join(open, "f"), 10)
	wantProblem(t, err, Unsafe, "is in "+open+", which is writable by group or others (chmod go-w fixes that)")
	if err := os.Chmod(open, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(filepath.Join(open, "f"), 10); err != nil {
		t.Errorf("in a sticky directory: %v", err)
	}
	if why := CheckDir(open); why != "" {
		t.Errorf("CheckDir(sticky) = %q", why)
	}
}
