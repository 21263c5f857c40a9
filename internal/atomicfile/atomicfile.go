// Package atomicfile writes private files so that a reader sees the old
// content or the new, never a part.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write replaces path with data, mode 0600: it writes a temporary file in
// the same directory, syncs it and renames it over path. On failure path
// is unchanged and the temporary file is gone.
func Write(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600; say so anyway, for other platforms.
	if err := tmp.Chmod(0o600); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
