// Package winpeer tells, on Windows, whether the process at the other end
// of a unix socket runs as this user. Windows has no uids and no peer
// credentials: the socket names the peer's process (SIO_AF_UNIX_GETPEERPID),
// and that process's token names its user (TokenUser), which is compared
// with this process's. Elsewhere the package is empty: the kernel names
// the peer's uid (mux/peer_linux.go, peer_bsd.go).
package winpeer
