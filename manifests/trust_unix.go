//go:build unix

package manifests

import (
	"io/fs"
	"os"
	"syscall"
)

// ownershipProblem says why fi fails the owner and permission part of the
// trust rule, or "" when it passes.
func ownershipProblem(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok || int(st.Uid) != os.Getuid():
		return "is not owned by the current user"
	case fi.Mode().Perm()&0o022 != 0:
		return "is writable by group or others (chmod go-w fixes that)"
	}
	return ""
}
