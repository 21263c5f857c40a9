//go:build unix

package filelock

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// Writers that each read a counter and write it back one higher, under the
// lock, all count: none reads while another is between its read and write.
func TestLock_Serializes(t *testing.T) {
	dir := t.TempDir()
	counter, lock := filepath.Join(dir, "n"), filepath.Join(dir, "n.lock")
	if err := os.WriteFile(counter, []byte("0"), 0o600); err != nil {
		t.Fatal(err)
	}
	const writers = 50
	start := make(chan struct{})
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			<-start
			errs <- increment(counter, lock)
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(counter)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != strconv.Itoa(writers) {
		t.Errorf("counter %s after %d increments", data, writers)
	}
	if fi, err := os.Stat(lock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v, %v; want mode 0600", fi, err)
	}
}

func increment(counter, lock string) error {
	unlock, err := Lock(lock)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := os.ReadFile(counter)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	return os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o600)
}

// A lock that cannot be made says where.
func TestLock_Missing(t *testing.T) {
	_, err := Lock(filepath.Join(t.TempDir(), "missing", "x.lock"))
	if err == nil {
		t.Fatal("locked a file in a directory that does not exist")
	}
}

// A symlink where the lock goes is not followed: nothing is made where it
// points.
func TestLock_RefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target, lock := filepath.Join(dir, "elsewhere"), filepath.Join(dir, "x.lock")
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	if unlock, err := Lock(lock); err == nil {
		unlock()
		t.Fatal("locked through a symlink")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the lock made the file the symlink points to")
	}
}
