package mux

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpsh/mcp/internal/privdir"
)

// GuestsSupported says whether a session can be shared with another local
// user: the kernel must say who is at the other end of the socket.
const GuestsSupported = true

// peerUID is the user the process at the other end of conn runs as, as
// the kernel tells it (SO_PEERCRED).
func peerUID(conn net.Conn) (int, bool) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false
	}
	uid, known := 0, false
	_ = raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err == nil {
			uid, known = int(cred.Uid), true
		}
	})
	return uid, known
}

// sharedDirPrefix names the directory of a session shared with another
// user: one directory per session, so that exactly it can be mounted into
// a container.
const sharedDirPrefix = "mcp-session-"

// sharedSocket makes the directory for the socket of session id, which
// another user will use, and returns the socket's path. The directory is
// new (an existing one, which someone else may have planted, is refused),
// this user's, and 0711: others may reach a name in it they know, not
// list it. The multiplexer checks every client's user.
func sharedSocket(id string) (string, error) {
	base := os.TempDir()
	dir := filepath.Join(base, sharedDirPrefix+id)
	if len(dir)+len("/mux.sock") > maxSocketPath {
		dir = filepath.Join("/tmp", sharedDirPrefix+id)
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
	return filepath.Join(dir, "mux.sock"), nil
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
