//go:build unix

package privdir

import (
	"fmt"
	"os"
	"syscall"
)

// Owned says whether this user owns the file st describes.
func Owned(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

// notPrivate says why the directory st describes is not this user's alone,
// or "": another user owns it, or group or others have a permission on it.
func notPrivate(_ string, st os.FileInfo) string {
	if !Owned(st) {
		return "belongs to another user"
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Sprintf("may be used by other users (mode %v); it must be 0700", st.Mode().Perm())
	}
	return ""
}

// restrict has nothing to add to the 0700 a directory is made with.
func restrict(string) error { return nil }
