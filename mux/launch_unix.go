//go:build unix

package mux

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

// launchWait bounds how long a multiplexer waits for its launch secret:
// session start wrote it before the multiplexer started.
const launchWait = 2 * time.Second

// readLaunch reads the launch secret, once, from the descriptor
// MCP_MUX_LAUNCH_FD names, and closes it, so that nothing this process
// starts inherits it; the variable goes too. A descriptor that gives more
// than a secret, or does not end within launchWait, gives none.
func readLaunch() string {
	v, ok := os.LookupEnv(launchFDEnv)
	os.Unsetenv(launchFDEnv)
	fd, err := strconv.Atoi(v)
	if !ok || err != nil || fd <= 2 {
		return ""
	}
	// Non-blocking, the descriptor is polled and the deadline holds.
	if err := syscall.SetNonblock(fd, true); err != nil {
		return ""
	}
	f := os.NewFile(uintptr(fd), "launch")
	defer f.Close()
	_ = f.SetReadDeadline(time.Now().Add(launchWait))
	b, err := io.ReadAll(io.LimitReader(f, maxLaunch+1))
	if err != nil || len(b) > maxLaunch {
		return ""
	}
	return string(b)
}
