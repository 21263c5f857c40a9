//go:build linux || darwin || freebsd

package mux

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/session"
)

// sharedDirPrefix names the directory of a session shared with another
// user: one directory per session, so that exactly it can be mounted into
// a container.
const sharedDirPrefix = "mcp-session-"

// sharedSocket makes the directory for the socket of session id, which
// guest will use, and returns the socket's path. The directory is new (an
// existing one, which someone else may have planted, is refused), this
// user's, and 0711: others may reach a name in it they know, not list it.
// The multiplexer checks every client's user. A directory the guest could
// not reach (TMPDIR under a directory it may not pass through) is
// removed again, and the error says so.
func sharedSocket(id string, guest *session.Guest) (string, error) {
	base, err := tempBase()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, sharedDirPrefix+id)
	if len(dir)+len("/mux.sock") > maxSocketPath {
		dir = filepath.Join("/tmp", sharedDirPrefix+id)
	}
	if err := safeParent(filepath.Dir(dir)); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() || !privdir.Owned(st) {
		return "", &os.PathError{Op: "mkdir", Path: dir, Err: syscall.EEXIST}
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		return "", err
	}
	if err := reachable(dir, guest); err != nil {
		_ = os.Remove(dir)
		return "", err
	}
	return filepath.Join(dir, "mux.sock"), nil
}

// reachable checks that guest may pass through every directory on the
// way to dir, and dir itself, by their owners, groups and modes.
func reachable(dir string, guest *session.Guest) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	var groups []string
	if u, err := user.LookupId(strconv.Itoa(guest.UID)); err == nil {
		groups, _ = u.GroupIds()
	}
	for p := real; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !mayPass(fi, guest.UID, groups) {
			return &UnreachableError{User: guest.Name, Dir: p, Mode: fi.Mode()}
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// mayPass says whether the user uid, in groups, may search the directory
// fi describes.
func mayPass(fi os.FileInfo, uid int, groups []string) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	perm := fi.Mode().Perm()
	switch {
	case uid == 0:
		return true
	case int(st.Uid) == uid:
		return perm&0o100 != 0
	case slices.Contains(groups, strconv.Itoa(int(st.Gid))):
		return perm&0o010 != 0
	}
	return perm&0o001 != 0
}

// shareSocket lets users other than the owner connect to a listening
// socket; the multiplexer still refuses every user but the two it serves.
func shareSocket(socket string) error { return os.Chmod(socket, 0o666) }

// removeSharedDir removes what is left of a shared session's directory:
// its lock and log, and the directory itself. It removes nothing in a
// directory not made by sharedSocket.
func removeSharedDir(socket string) error {
	dir := filepath.Dir(socket)
	if filepath.Base(socket) != "mux.sock" || !strings.HasPrefix(filepath.Base(dir), sharedDirPrefix) {
		return nil
	}
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || !privdir.Owned(st) {
		return nil
	}
	for _, f := range []string{socket, socket + ".lock", socket + ".log"} {
		_ = os.Remove(f)
	}
	return os.Remove(dir)
}
