//go:build !linux && !darwin && !freebsd && !windows

package mux

import (
	"net"
	"os"
)

// listenerUID cannot ask the kernel here, and trusts the socket's
// directory instead: a multiplexer's socket is in a directory that is
// this user's and 0700 (sessions for another user, whose directory others
// may reach, need Linux), so no other user can listen on it.
func listenerUID(net.Conn) (int, bool) { return os.Getuid(), true }
