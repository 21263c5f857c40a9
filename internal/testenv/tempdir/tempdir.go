// Package tempdir gives a test a directory of its own that Wine can
// remove: t.TempDir's os.RemoveAll uses FileDispositionInformationEx,
// which Wine lacks, so this one is removed a name at a time. It imports
// nothing of ours, so any package's tests may use it.
package tempdir

import (
	"os"
	"path/filepath"
	"testing"
)

// New is a new directory, named after prefix, removed when the test ends.
func New(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remove(t, dir) })
	return dir
}

// remove removes dir and what it holds, failing the test on what could
// not be removed.
func remove(t testing.TB, dir string) {
	for _, err := range Remove(dir) {
		t.Errorf("cleanup: %v", err)
	}
}

// Remove removes dir and what it holds, a name at a time, and returns
// what could not be removed.
func Remove(dir string) []error {
	var errs []error
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			errs = append(errs, Remove(p)...)
		} else if err := os.Remove(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(dir); err != nil {
		errs = append(errs, err)
	}
	return errs
}
