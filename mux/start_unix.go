//go:build unix

package mux

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// readyFD is the descriptor a multiplexer started by Ensure reports on.
const readyFD = 3

// handOver gives the multiplexer cmd starts the ready pipe's write end,
// at readyFD, and own after it, from descriptor 4, and its own session:
// it outlives this process and never gets the terminal's signals.
func handOver(cmd *exec.Cmd, ready *os.File, own []*os.File) error {
	cmd.ExtraFiles = append([]*os.File{ready}, own...)
	closeInherited()
	cmd.Env = append(cmd.Env, readyEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}

// readyFile is the ready pipe Ensure handed over, which readyEnv's value
// v says there is.
func readyFile(string) *os.File { return os.NewFile(readyFD, "ready") }

// stopProcess signals the multiplexer pid to stop: SIGTERM, or with
// force SIGKILL.
func stopProcess(pid int, force bool) {
	sig := syscall.SIGTERM
	if force {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(pid, sig)
}

// closeInherited marks every descriptor above stderr close-on-exec, so
// that a multiplexer started from this process holds nothing this process
// inherited: a pipe its parent waits on would otherwise stay open as long
// as the multiplexer lives.
func closeInherited() {
	dir := "/proc/self/fd"
	if _, err := os.Stat(dir); err != nil {
		dir = "/dev/fd"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
