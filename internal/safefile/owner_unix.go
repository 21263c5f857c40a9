//go:build unix

package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// openNoFollow opens path for reading without following a symlink there
// and without waiting for a writer, should a FIFO have taken its place.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
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
	return "owned by " + UserName(uid) + ", not by you or root"
}

// notOwn says whose fi is when it is not the current user's own, or "".
func notOwn(fi fs.FileInfo) string {
	uid, ok := ownerOf(fi)
	switch {
	case !ok:
		return "owned by an unknown user, not by you"
	case uid == os.Getuid():
		return ""
	}
	return "owned by " + UserName(uid) + ", not by you"
}

// othersCanWrite says whether group or others may write fi.
func othersCanWrite(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o022 != 0 }

// othersCanRead says whether group or others have any access to fi.
func othersCanRead(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }

// UserName names a uid as "NAME (uid N)", or "uid N" when it has no name.
func UserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
