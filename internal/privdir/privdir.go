// Package privdir makes and checks the directories mcp keeps private to the
// user: the multiplexers' sockets and logs, and saved outputs. Each is
// made 0700 and refused unless it is a real directory (not a symlink),
// owned by this user, that no one else may use.
package privdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Base is the user's private directory for mcp's runtime files:
// $XDG_RUNTIME_DIR/mcp when runtime (XDG_RUNTIME_DIR) is an absolute path,
// else mcp-UID in tmp. It is not made; Make does that.
func Base(tmp, runtime string) string {
	if runtime != "" && filepath.IsAbs(runtime) {
		return filepath.Join(runtime, "mcp")
	}
	return filepath.Join(tmp, "mcp-"+strconv.Itoa(os.Getuid()))
}

// Default is Base for this process: os.TempDir() and XDG_RUNTIME_DIR.
func Default() string { return Base(os.TempDir(), os.Getenv("XDG_RUNTIME_DIR")) }

// Make makes dir (0700, and its missing parents) and checks that it is
// this user's alone: a directory and not a symlink to one, owned by this
// user, with no permission for group or others. It changes nothing about
// a directory that is already there, so nothing is changed through a
// symlink another user planted.
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link, not a private directory", dir)
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	case !Owned(st):
		return fmt.Errorf("%s belongs to another user", dir)
	case st.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s may be used by other users (mode %v); it must be 0700", dir, st.Mode().Perm())
	}
	return nil
}
