//go:build darwin || freebsd

package mux

import "net"

// GuestsSupported says whether a session can be shared with another local
// user: the kernel must say who is at the other end of the socket.
const GuestsSupported = true

// peerUID is the user the process at the other end of conn runs as, as
// the kernel tells it (LOCAL_PEERCRED: on an accepted socket, who
// connected; on a connected one, who listened, listenerUID).
func peerUID(conn net.Conn) (int, bool) { return listenerUID(conn) }
