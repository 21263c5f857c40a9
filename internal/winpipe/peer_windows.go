package winpipe

import (
	"net"

	"golang.org/x/sys/windows"
)

// SameUser says whether process pid runs as the user this process runs
// as: the user its token names is this process's token's. A process
// whose token cannot be read (another user's, one that has exited) does
// not.
func SameUser(pid uint32) bool {
	theirs, err := processUser(pid)
	if err != nil {
		return false
	}
	mine, err := windows.GetCurrentProcessToken().GetTokenUser()
	return err == nil && theirs.Equals(mine.User.Sid)
}

// processUser is the user that process pid's token names.
func processUser(pid uint32) (*windows.SID, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return nil, err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return nil, err
	}
	// The SID lives in u's buffer; a copy outlives it.
	return u.User.Sid.Copy()
}

// PeerIsMe says whether the process at the other end of conn runs as this
// user; false when the system does not say who it is.
func PeerIsMe(conn net.Conn) bool {
	c, ok := conn.(*Conn)
	if !ok {
		return false
	}
	pid, ok := c.PeerPID()
	return ok && SameUser(pid)
}
