//go:build unix

package privdir

import (
	"os"
	"syscall"
)

// Owned says whether this user owns the file st describes.
func Owned(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

// openToOthers says whether group or others have any permission on the
// file st describes.
func openToOthers(st os.FileInfo) bool { return st.Mode().Perm()&0o077 != 0 }
