//go:build unix

package mux

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpsh/mcp/internal/privdir"
)

// Supported says whether this system runs multiplexers; where it
// does not, every invocation connects directly.
const Supported = true

// dialSocket connects to the unix socket at socket.
func dialSocket(ctx context.Context, socket string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", socket)
}

// shortDir stands in for the runtime directory dir where a socket's path
// in it would be too long: another private directory, in /tmp.
func shortDir(dir string) (string, error) {
	if err := safeParent("/tmp"); err != nil {
		return "", err
	}
	return privdir.Short(dir)
}

// Listen takes the socket's lock, removes a socket left by a multiplexer
// that died, and listens (the socket is 0600). The returned release
// removes the socket, its lock file and its log, and drops the lock, so
// that nothing is left behind a multiplexer that ended. ErrBusy means
// another multiplexer holds the lock.
func Listen(socket string) (net.Listener, func(), error) {
	lock, err := takeLock(socket + ".lock")
	if err != nil {
		return nil, nil, err
	}
	_ = lock.Truncate(0)
	_, _ = lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	_ = os.Remove(socket)
	old := syscall.Umask(0o077)
	ln, err := net.Listen("unix", socket)
	syscall.Umask(old)
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		lock.Close()
		return nil, nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	release := func() {
		_ = os.Remove(socket)
		_ = os.Remove(socket + ".log")
		// Removed while still held: whoever opened this file before it
		// went sees, once it has the lock, that the path names another
		// file or none, and tries again (takeLock).
		_ = os.Remove(lock.Name())
		lock.Close()
	}
	return ln, release, nil
}

// openNoFollow opens path with flag (0600 when made), refusing a symlink
// there.
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o600)
}

// tryLock takes f's lock without waiting: false when another holds it.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	}
	return false, err
}

// sweep removes what multiplexers that died left in dir: a lock file no
// one holds, with no socket beside it, and that multiplexer's log. Files
// touched in the last few seconds may be a multiplexer's that is starting,
// and are left alone.
func sweep(dir string) {
	locks, _ := filepath.Glob(filepath.Join(dir, "*.sock.lock"))
	for _, path := range locks {
		socket := strings.TrimSuffix(path, ".lock")
		if _, err := os.Lstat(socket); err == nil || recent(path) || recent(socket+".log") {
			continue
		}
		lock, err := openNoFollow(path, os.O_RDWR)
		if err != nil {
			continue
		}
		if ok, _ := tryLock(lock); ok {
			if held, err := lock.Stat(); err == nil {
				if now, err := os.Stat(path); err == nil && os.SameFile(held, now) {
					_ = os.Remove(socket + ".log")
					_ = os.Remove(path)
				}
			}
		}
		lock.Close()
	}
}

// Running reports whether a multiplexer holds the socket's lock.
func Running(socket string) bool {
	lock, err := openNoFollow(socket+".lock", os.O_RDWR)
	if err != nil {
		return false
	}
	defer lock.Close()
	if ok, _ := tryLock(lock); !ok {
		return true
	}
	_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	return false
}

// openLog opens the multiplexer's log next to its socket (0600), never
// through a symlink.
func openLog(socket string) (*os.File, error) {
	return os.OpenFile(socket+".log", os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
}
