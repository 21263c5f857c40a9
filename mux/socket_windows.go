package mux

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/winpipe"
)

// Supported says whether this system runs multiplexers; where it
// does not, every invocation connects directly. On Windows a multiplexer
// listens on a named pipe (winpipe), which every Windows has.
const Supported = true

// shortDir is dir: the file at a socket's path only names the pipe, so
// no path is too long for it.
func shortDir(dir string) (string, error) { return dir, nil }

// lockOffset is where the lock of a lock file lies: past the pid written
// at its start, which LockFileEx's lock, unlike flock's, would keep others
// from reading.
const lockOffset = 1 << 31

// Listen takes the socket's lock and listens on a named pipe of a new,
// random name (winpipe), which only this user may open; the file at the
// socket's path, in the runtime directory (whose access list lets in this
// user, the system and the Administrators group: privdir), says which, so
// that no other user can guess the pipe's name or take it first. Every
// client's user is checked as well (peerUID). The returned release
// removes that file, the lock file and the log, and drops the lock.
// ErrBusy means another multiplexer holds the lock.
func Listen(socket string) (net.Listener, func(), error) {
	lock, err := takeLock(socket + ".lock")
	if err != nil {
		return nil, nil, err
	}
	_ = lock.Truncate(0)
	_, _ = lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	name := winpipe.NewName()
	ln, err := winpipe.Listen(name)
	if err == nil {
		err = atomicfile.Write(socket, []byte(name+"\n"))
		if err != nil {
			ln.Close()
		}
	}
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	release := func() {
		_ = os.Remove(socket)
		_ = os.Remove(socket + ".log")
		// Closed first: Windows removes no file that is open. Whoever
		// takes the lock in between finds the file gone, or keeps it.
		name := lock.Name()
		lock.Close()
		_ = os.Remove(name)
	}
	return ln, release, nil
}

// dialSocket connects to the named pipe the file at socket names.
func dialSocket(ctx context.Context, socket string) (net.Conn, error) {
	f, err := openNoFollow(socket, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 128))
	f.Close()
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(string(b), "\n")
	if !winpipe.ValidName(name) {
		return nil, &os.PathError{Op: "dial", Path: socket, Err: errors.New("names no pipe of a multiplexer")}
	}
	return winpipe.Dial(ctx, name)
}

// openNoFollow opens path for reading and writing, made when create is
// set, refusing a symlink (or other reparse point) there.
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|windows.O_FILE_FLAG_OPEN_REPARSE_POINT, 0o600)
	if err != nil {
		return nil, err
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil ||
		info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symlink or reparse point, which is not followed")}
	}
	return f, nil
}

// tryLock takes f's lock without waiting: false when another holds it.
func tryLock(f *os.File) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, &windows.Overlapped{Offset: lockOffset})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

func unlock(f *os.File) {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &windows.Overlapped{Offset: lockOffset})
}

// sweep removes what multiplexers that died left in dir: a lock file no
// one holds, with no socket beside it, and its log; files touched in the
// last few seconds are left alone.
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
		ok, _ := tryLock(lock)
		lock.Close()
		if ok {
			_ = os.Remove(socket + ".log")
			_ = os.Remove(path)
		}
	}
}

// Running reports whether a multiplexer holds the socket's lock.
func Running(socket string) bool {
	lock, err := openNoFollow(socket+".lock", os.O_RDWR)
	if err != nil {
		return false
	}
	defer lock.Close()
	ok, err := tryLock(lock)
	if ok {
		unlock(lock)
	}
	return err == nil && !ok
}

// openLog opens the multiplexer's log next to its socket, never through a
// symlink.
func openLog(socket string) (*os.File, error) {
	f, err := openNoFollow(socket+".log", os.O_WRONLY|os.O_CREATE)
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil && f != nil {
		f.Close()
		return nil, err
	}
	return f, err
}
