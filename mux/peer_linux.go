package mux

import (
	"net"
	"syscall"
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

// listenerUID is the user the process at the other end of conn ran as
// when it listened, as the kernel tells it (SO_PEERCRED on a connected
// socket says who listened, as on an accepted one it says who connected).
func listenerUID(conn net.Conn) (int, bool) { return peerUID(conn) }
