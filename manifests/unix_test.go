//go:build unix

package manifests

import (
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
