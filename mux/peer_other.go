//go:build !linux

package mux

import "net"

// samePeer trusts the socket's directory: it is 0700 and this user's, so
// no other user can reach the socket.
func samePeer(net.Conn) bool { return true }
