//go:build unix

package manifests

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestLoad_RejectsFIFO(t *testing.T) {
	root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{"manifests": ["mcp.json"]}`)})
	if err := syscall.Mkfifo(filepath.Join(root, "mcp.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root) // must not block on the FIFO
	wantErrs(t, err, "mcp.json: is not a regular file (a named pipe)")
}

func TestLoad_RejectsDevice(t *testing.T) {
	root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{"manifests": ["zero.json"]}`)})
	if err := os.Symlink("/dev/zero", filepath.Join(root, "zero.json")); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root)
	wantErrs(t, err, "zero.json: is not a regular file (a device)")
}

// giveAway makes the trust rule see files named name as another user's,
// as chown would, without needing root to run it.
func giveAway(t *testing.T, name string) {
	real := ownerOf
	t.Cleanup(func() { ownerOf = real })
	ownerOf = func(fi fs.FileInfo) (int, bool) {
		if fi.Name() == name {
			return os.Getuid() + 4242, true
		}
		return real(fi)
	}
}
