//go:build !linux && !darwin && !freebsd && !windows

package mux

import (
	"net"
	"os"

	"github.com/mcpsh/mcp/internal/session"
)

// GuestsSupported says whether a session can be shared with another local
// user: here the kernel does not say who is at the other end of a socket.
const GuestsSupported = false

// peerUID trusts the socket's directory: it is 0700 and this user's, so
// no other user can reach the socket.
func peerUID(net.Conn) (int, bool) { return os.Getuid(), true }

func sharedSocket(string, *session.Guest) (string, error) { return "", ErrNoGuests }
func shareSocket(string) error                            { return ErrNoGuests }
func removeSharedDir(string) error                        { return nil }
