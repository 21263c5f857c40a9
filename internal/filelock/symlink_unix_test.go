//go:build unix

package filelock

import (
	"os"
	"path/filepath"
	"testing"
)

// Where symlinks are made at will (unix). On Windows a symlink needs
// Developer Mode or a privilege, and Wine's CreateSymbolicLink reports
// success and makes nothing: refusing one there is untested
// (docs/install.md says so).

// A symlink where the lock goes is not followed: nothing is made where it
// points.
func TestLock_RefusesSymlink(t *testing.T) {
	dir := tempDir(t)
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
