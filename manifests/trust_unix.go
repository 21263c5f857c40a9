//go:build unix

package manifests

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// ownerOf returns the uid that owns fi. Tests replace it to give a file
// away without being root.
var ownerOf = func(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// ownershipProblem says why fi fails the owner and permission part of the
// trust rule, or "" when it passes.
func ownershipProblem(fi fs.FileInfo) string {
	uid, ok := ownerOf(fi)
	switch {
	case !ok || uid != os.Getuid():
		return "is not owned by the current user"
	case fi.Mode().Perm()&0o022 != 0:
		return "is writable by group or others (chmod go-w fixes that)"
	}
	return ""
}

// notOwnersOrRoots says whose fi is when it is neither the current user's
// nor root's ("owned by NAME (uid N), not by you or root"), or "".
func notOwnersOrRoots(fi fs.FileInfo) string {
	uid, ok := ownerOf(fi)
	switch {
	case !ok:
		return "owned by an unknown user, not by you or root"
	case uid == 0 || uid == os.Getuid():
		return ""
	}
	return "owned by " + userName(uid) + ", not by you or root"
}

// othersCanWrite says whether group or others may write fi.
func othersCanWrite(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o022 != 0 }

// userName names a uid as "NAME (uid N)", or "uid N" when it has no name.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
