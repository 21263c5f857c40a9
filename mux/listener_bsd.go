//go:build darwin || freebsd

package mux

import (
	"net"

	"golang.org/x/sys/unix"
)

// listenerUID is the user the process at the other end of conn ran as
// when it listened, as the kernel tells it (LOCAL_PEERCRED).
func listenerUID(conn net.Conn) (int, bool) {
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
		cred, err := unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err == nil {
			uid, known = int(cred.Uid), true
		}
	})
	return uid, known
}
