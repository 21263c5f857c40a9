//go:build linux || darwin || freebsd

package mux

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// The kernel says who is at either end of a unix socket (SO_PEERCRED on
// Linux, LOCAL_PEERCRED on macOS and FreeBSD): here this user, at both.
func TestPeerUIDOfSocketpair(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatalf("end %d: %v", i, err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	if uid, known := peerUID(conns[0]); !known || uid != os.Getuid() {
		t.Errorf("peerUID = %d, %v; want %d, true", uid, known, os.Getuid())
	}
	if uid, known := listenerUID(conns[1]); !known || uid != os.Getuid() {
		t.Errorf("listenerUID = %d, %v; want %d, true", uid, known, os.Getuid())
	}
	if !GuestsSupported {
		t.Error("GuestsSupported is false where the kernel says who connects")
	}
}
