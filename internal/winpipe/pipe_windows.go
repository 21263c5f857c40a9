package winpipe

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// prefix begins every pipe's name that NewName makes.
const prefix = `\\.\pipe\mcp-`

// NewName is the name of a new pipe: a random one, which another user can
// neither guess nor take first.
func NewName() string {
	return prefix + strings.ToLower(rand.Text())
}

// ValidName says whether name is one NewName could have made.
func ValidName(name string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || len(rest) != 26 {
		return false
	}
	for _, r := range rest {
		if (r < 'a' || r > 'z') && (r < '2' || r > '7') {
			return false
		}
	}
	return true
}

// pipeMode: a stream of bytes, for this machine's processes only.
const pipeMode = windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS

const bufSize = 64 << 10

// Listener accepts connections on a named pipe.
type Listener struct {
	name string
	sa   *windows.SecurityAttributes
	stop windows.Handle // an event Close sets

	acceptMu sync.Mutex // one Accept at a time
	mu       sync.Mutex
	next     windows.Handle // the instance a client connects to next
	closed   bool
}

// Listen makes the pipe name, which only this user may open (its access
// list names this user alone), failing if a pipe of that name is there.
func Listen(name string) (*Listener, error) {
	if !ValidName(name) {
		return nil, &os.PathError{Op: "listen", Path: name, Err: errors.New("is not a pipe's name mcp makes")}
	}
	sa, err := onlyMe()
	if err != nil {
		return nil, err
	}
	stop, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	l := &Listener{name: name, sa: sa, stop: stop}
	if l.next, err = l.instance(true); err != nil {
		windows.CloseHandle(stop)
		return nil, &os.PathError{Op: "listen", Path: name, Err: err}
	}
	return l, nil
}

// onlyMe is security attributes whose access list lets this user, and no
// one else, open the pipe or make another instance of it.
func onlyMe() (*windows.SecurityAttributes, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + u.User.Sid.String() + ")")
	if err != nil {
		return nil, err
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// instance makes an instance of the pipe for the next client; the first
// fails if another process made the pipe already.
func (l *Listener) instance(first bool) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	return windows.CreateNamedPipe(name, flags, pipeMode, windows.PIPE_UNLIMITED_INSTANCES, bufSize, bufSize, 0, l.sa)
}

// Accept waits for a client and returns its connection.
func (l *Listener) Accept() (net.Conn, error) {
	l.acceptMu.Lock()
	defer l.acceptMu.Unlock()
	l.mu.Lock()
	h, closed := l.next, l.closed
	l.mu.Unlock()
	switch {
	case closed:
		return nil, net.ErrClosed
	case h == windows.InvalidHandle:
		return nil, &net.OpError{Op: "accept", Net: "pipe", Addr: l.Addr(), Err: errors.New("no instance of the pipe could be made")}
	}
	for {
		err := l.connect(h)
		if err == nil {
			break
		}
		if l.isClosed() {
			return nil, net.ErrClosed
		}
		if !errors.Is(err, windows.ERROR_NO_DATA) {
			return nil, &net.OpError{Op: "accept", Net: "pipe", Addr: l.Addr(), Err: err}
		}
		// A client that came and went before it was seen: its instance
		// is replaced by a new one (made first, so that the pipe is never
		// gone), and the listener goes on.
		if h, err = l.replace(h); err != nil {
			return nil, &net.OpError{Op: "accept", Net: "pipe", Addr: l.Addr(), Err: err}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, net.ErrClosed
	}
	next, err := l.instance(false)
	if err != nil {
		next = windows.InvalidHandle
	}
	l.next = next
	return newConn(h, l.name, true), nil
}

// replace makes a new instance to wait on in place of h, which it closes.
func (l *Listener) replace(h windows.Handle) (windows.Handle, error) {
	next, err := l.instance(false)
	if err != nil {
		return h, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = windows.CloseHandle(next)
		return h, net.ErrClosed
	}
	_ = windows.CloseHandle(h)
	l.next = next
	return next, nil
}

// connect waits until a client has opened instance h, or Close is called.
func (l *Listener) connect(h windows.Handle) error {
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	switch err := windows.ConnectNamedPipe(h, ov); {
	case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		return nil
	case !errors.Is(err, windows.ERROR_IO_PENDING):
		return err
	}
	which, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.stop}, false, windows.INFINITE)
	if err == nil && which == windows.WAIT_OBJECT_0+1 {
		_ = windows.CancelIoEx(h, ov)
	}
	var n uint32
	return windows.GetOverlappedResult(h, ov, &n, true)
}

func (l *Listener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Close stops Accept and removes the instance no client has opened;
// connections accepted stay open.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	_ = windows.SetEvent(l.stop)
	// Once Accept has seen the stop: the instance it waited on is the
	// one left.
	l.acceptMu.Lock()
	defer l.acceptMu.Unlock()
	if l.next != windows.InvalidHandle {
		_ = windows.CloseHandle(l.next)
		l.next = windows.InvalidHandle
	}
	return windows.CloseHandle(l.stop)
}

// Addr is the pipe's name.
func (l *Listener) Addr() net.Addr { return addr(l.name) }

// Dial opens the pipe name, waiting while every instance is busy, until
// ctx ends.
func Dial(ctx context.Context, name string) (net.Conn, error) {
	if !ValidName(name) {
		return nil, &os.PathError{Op: "dial", Path: name, Err: errors.New("is not a pipe's name mcp makes")}
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	for {
		// SECURITY_IDENTIFICATION: the listener may learn who this is, but
		// not act as this user.
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		if err == nil {
			return newConn(h, name, false), nil
		}
		if !errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, &net.OpError{Op: "dial", Net: "pipe", Addr: addr(name), Err: err}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Conn is one end of a connection on a pipe: a file opened for
// overlapped I/O, which Go's runtime reads and writes without holding a
// thread, with deadlines.
type Conn struct {
	*os.File
	name   string
	server bool // the listener's end
}

func newConn(h windows.Handle, name string, server bool) *Conn {
	return &Conn{File: os.NewFile(uintptr(h), name), name: name, server: server}
}

func (c *Conn) LocalAddr() net.Addr  { return addr(c.name) }
func (c *Conn) RemoteAddr() net.Addr { return addr(c.name) }

// PeerPID is the process at the other end: on the listener's end, who
// opened the pipe; on the client's, who listens on it.
func (c *Conn) PeerPID() (uint32, bool) {
	raw, err := c.File.SyscallConn()
	if err != nil {
		return 0, false
	}
	var pid uint32
	var perr error
	if err := raw.Control(func(fd uintptr) {
		if c.server {
			perr = windows.GetNamedPipeClientProcessId(windows.Handle(fd), &pid)
		} else {
			perr = windows.GetNamedPipeServerProcessId(windows.Handle(fd), &pid)
		}
	}); err != nil || perr != nil || pid == 0 {
		return 0, false
	}
	return pid, true
}

type addr string

func (addr) Network() string  { return "pipe" }
func (a addr) String() string { return string(a) }
