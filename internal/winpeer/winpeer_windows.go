package winpeer

import (
	"net"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID of afunix.h,
// _WSAIOR(IOC_VENDOR, 256): the pid of the process at the other end of a
// connected AF_UNIX socket (on an accepted one, who connected; on a
// connected one, who listened).
const sioAFUnixGetPeerPID = 0x58000100

// PID is the process at the other end of conn, as the system tells it.
func PID(conn net.Conn) (uint32, bool) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var pid, n uint32
	known := false
	_ = raw.Control(func(fd uintptr) {
		err := windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
		known = err == nil && n == uint32(unsafe.Sizeof(pid)) && pid != 0
	})
	return pid, known
}

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
	pid, ok := PID(conn)
	return ok && SameUser(pid)
}
