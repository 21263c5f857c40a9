//go:build unix

package mux

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsh/mcp/internal/privdir"
)

// Supported says whether this system runs multiplexers; where it
// does not, every invocation connects directly.
const Supported = true

// maxSocketPath keeps socket paths inside sun_path on every unix.
const maxSocketPath = 100

// ErrBusy says another multiplexer holds the socket.
var ErrBusy = errors.New("another multiplexer holds this socket")

// SocketPath is where the multiplexer for key listens: in
// $XDG_RUNTIME_DIR/mcp when that is set, else in $TMPDIR/mcp-UID. The
// directory is created 0700 and refused when another user owns it or
// others may write to it.
func SocketPath(key string) (string, error) {
	return SocketPathIn(os.TempDir(), os.Getenv("XDG_RUNTIME_DIR"), key)
}

// SocketPathIn is SocketPath for a process whose temporary directory and
// XDG_RUNTIME_DIR are tmp and runtime.
func SocketPathIn(tmp, runtime, key string) (string, error) {
	dir := privdir.Base(tmp, runtime)
	name := key + ".sock"
	if len(filepath.Join(dir, name)) > maxSocketPath {
		sum := sha256.Sum256([]byte(dir))
		dir = filepath.Join("/tmp", "mcp-"+strconv.Itoa(os.Getuid())+"-"+hex.EncodeToString(sum[:4]))
	}
	if err := privdir.Make(dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// SocketDir is the directory SocketPath puts sockets in.
func SocketDir() (string, error) {
	p, err := SocketPath(strings.Repeat("0", keyLen))
	if err != nil {
		return "", err
	}
	return filepath.Dir(p), nil
}

// keyLen is the length of the keys the CLI names multiplexers by.
const keyLen = 20

// Listen takes the socket's lock, removes a socket left by a multiplexer
// that died, and listens (the socket is 0600). The returned release
// removes the socket and drops the lock. ErrBusy means another
// multiplexer holds the lock.
func Listen(socket string) (net.Listener, func(), error) {
	lock, err := os.OpenFile(socket+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil, ErrBusy
		}
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
		lock.Close()
	}
	return ln, release, nil
}

// Running reports whether a multiplexer holds the socket's lock.
func Running(socket string) bool {
	lock, err := os.OpenFile(socket+".lock", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	return false
}

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
