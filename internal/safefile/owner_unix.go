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

// inspected is what the owner and mode part of the rule reads of a file:
// on unix its information, owner and mode (Windows reads its security
// descriptor).
type inspected = fs.FileInfo

// inspectPath is what the rule reads of fi, the file at path (a symlink
// there itself, unless follow).
func inspectPath(fi fs.FileInfo, _ string, _ bool) inspected { return fi }

// inspectFile is what the rule reads of fi, the open file f.
func inspectFile(fi fs.FileInfo, _ *os.File) inspected { return fi }

func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// notOwnersOrRoots says whose fi is when it is neither the current user's
// nor root's ("owned by NAME (uid N), not by you or root"), or "".
func notOwnersOrRoots(fi inspected) string {
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
func notOwn(fi inspected) string {
	uid, ok := ownerOf(fi)
	switch {
	case !ok:
		return "owned by an unknown user, not by you"
	case uid == os.Getuid():
		return ""
	}
	return "owned by " + UserName(uid) + ", not by you"
}

// writableBy says who besides the user may write fi, and how to stop
// them ("group or others (chmod go-w fixes that)"), or "".
func writableBy(fi inspected, path string) string {
	if fi.Mode().Perm()&0o022 == 0 {
		return ""
	}
	return "group or others (" + WritableFix(path) + ")"
}

// dirWritableBy is writableBy for the directory fi, but for a sticky one:
// there others may add names of their own but not rename or remove the
// user's.
func dirWritableBy(fi inspected, path string) string {
	if fi.Mode()&fs.ModeSticky != 0 {
		return ""
	}
	return writableBy(fi, path)
}

// readableBy says who besides the user has any access to fi, and how to
// stop them, or "".
func readableBy(fi inspected, _ string) string {
	if fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return "group or others (chmod go-rwx fixes that)"
}

// UserName names a uid as "NAME (uid N)", or "uid N" when it has no name.
func UserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
