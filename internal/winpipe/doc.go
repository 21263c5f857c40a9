// Package winpipe is the multiplexer's connection on Windows: a named
// pipe that only this user may open, whose two ends tell each other's
// process (GetNamedPipeClientProcessId, GetNamedPipeServerProcessId),
// and that process's token its user (TokenUser), compared with this
// process's. Named pipes are on every Windows, where AF_UNIX sockets are
// not (not before Windows 10 1803, nor under Wine). Elsewhere the package
// is empty: the multiplexer listens on a unix socket, and the kernel names
// the peer's uid (mux/peer_linux.go, peer_bsd.go).
package winpipe
