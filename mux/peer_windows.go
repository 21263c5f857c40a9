package mux

import (
	"net"
	"os"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/winpipe"
)

// GuestsSupported says whether a session can be shared with another local
// user: not on Windows, where the multiplexer can tell only whether a
// client runs as this user (winpipe), not which other user it is.
const GuestsSupported = false

// peerUID is this user's uid (os.Getuid, -1 on Windows, which has no
// uids) when the process at the other end of conn runs as this user, as
// its token says (winpipe); a peer of another user, or one the system
// does not name, is not known.
func peerUID(conn net.Conn) (int, bool) {
	if !winpipe.PeerIsMe(conn) {
		return 0, false
	}
	return os.Getuid(), true
}

// listenerUID is peerUID: on a connected socket the system names the
// process that listened, as on an accepted one it names who connected.
func listenerUID(conn net.Conn) (int, bool) { return peerUID(conn) }

func sharedSocket(string, *session.Guest) (string, error) { return "", ErrNoGuests }
func shareSocket(string) error                            { return ErrNoGuests }
func removeSharedDir(string) error                        { return nil }
