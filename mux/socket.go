//go:build unix || windows

package mux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/safefile"
)

// maxSocketPath keeps socket paths inside sun_path on every unix (on
// Windows the file there names a pipe, and shortDir keeps any path).
const maxSocketPath = 100

// ErrBusy says another multiplexer holds the socket.
var ErrBusy = errors.New("another multiplexer holds this socket")

// SocketPath is where the multiplexer for key listens: in the user's
// runtime directory (privdir.Runtime: $XDG_RUNTIME_DIR/mcp, else a
// directory of a random name in $TMPDIR, remembered), or, when the path
// would be too long for a socket, in another such directory (shortDir).
func SocketPath(key string) (string, error) {
	if _, err := tempBase(); err != nil {
		return "", err
	}
	if err := safeParent(privdir.Parent()); err != nil {
		return "", err
	}
	dir, err := privdir.Runtime()
	if err != nil {
		return "", err
	}
	name := key + ".sock"
	if len(filepath.Join(dir, name)) > maxSocketPath {
		if dir, err = shortDir(dir); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, name), nil
}

// tempBase is os.TempDir, which must be an absolute path: a relative
// TMPDIR would put a socket where neither the multiplexer, which runs
// from /, nor a session's other user would find it.
func tempBase() (string, error) {
	tmp := os.TempDir()
	if !filepath.IsAbs(tmp) {
		return "", &BadTempDirError{Dir: tmp, Why: "is not an absolute path", Relative: true}
	}
	return tmp, nil
}

// safeParent checks that dir, where a multiplexer's directory is made, is
// a place nobody else can write (unless sticky, as /tmp is): whoever could
// would rename the directory made there and put one of their own, holding
// links to the user's files, in its place.
func safeParent(dir string) error {
	if why := safefile.CheckDir(dir); why != "" {
		return &BadTempDirError{Dir: dir, Why: why}
	}
	return nil
}

// BadTempDirError says the directory sockets would be made in is not
// fit for them: TMPDIR is not an absolute path, or others could write a
// directory on the way.
type BadTempDirError struct {
	Dir, Why string
	Relative bool // TMPDIR itself is relative
}

func (e *BadTempDirError) ExitCode() int { return exit.Usage }

func (e *BadTempDirError) Error() string {
	if e.Relative {
		return fmt.Sprintf("TMPDIR=%.60q %s", e.Dir, e.Why)
	}
	return fmt.Sprintf("no multiplexer's socket may go in %s: a directory made there %s", e.Dir, e.Why)
}

// SocketDir is the directory SocketPath puts sockets in.
func SocketDir() (string, error) {
	p, err := SocketPath(strings.Repeat("0", keyLen))
	if err != nil {
		return "", err
	}
	return filepath.Dir(p), nil
}

// keyLen is the length of the longest name of a socket, without its
// suffix: a target's key, "-" and its environment's (Target.SocketKey).
const keyLen = 20 + 1 + 12

// WaitGone waits until no multiplexer holds the socket, up to timeout.
func WaitGone(socket string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for Running(socket) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// recent says whether the file at path was modified in the last 10 seconds.
func recent(path string) bool {
	st, err := os.Stat(path)
	return err == nil && time.Since(st.ModTime()) < 10*time.Second
}

// takeLock opens and locks the lock file at path (openNoFollow, tryLock:
// each system's). A lock file is removed by its holder when its
// multiplexer ends (or by sweep when one died), so a lock taken on a file
// that is no longer at path is let go and taken again on the file that is.
func takeLock(path string) (*os.File, error) {
	for range 10 {
		lock, err := openNoFollow(path, os.O_RDWR|os.O_CREATE)
		if err != nil {
			return nil, err
		}
		ok, err := tryLock(lock)
		if err != nil || !ok {
			lock.Close()
			if err != nil {
				return nil, err
			}
			return nil, ErrBusy
		}
		held, err1 := lock.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return lock, nil
		}
		lock.Close()
	}
	return nil, ErrBusy
}
