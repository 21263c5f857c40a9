//go:build !linux && !darwin && !freebsd && !windows

package mux

import (
	"errors"
	"net"
	"os"

	"github.com/mcpsh/mcp/internal/session"
)

// GuestsSupported says whether a session can be shared with another local
// user: here the kernel does not say who is at the other end of a socket.
const GuestsSupported = false

var errNoGuests = errors.New("a session for another user needs Linux, macOS or FreeBSD, where the multiplexer can tell who connects")

// peerUID trusts the socket's directory: it is 0700 and this user's, so
// no other user can reach the socket.
func peerUID(net.Conn) (int, bool) { return os.Getuid(), true }

func sharedSocket(string, *session.Guest) (string, error) { return "", errNoGuests }
func shareSocket(string) error                            { return errNoGuests }
func removeSharedDir(string) error                        { return nil }
