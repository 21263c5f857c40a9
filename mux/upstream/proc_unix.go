//go:build unix

package upstream

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownGroup makes the child the leader of a new process group, so that it and
// everything it spawns can be signalled together.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// signalGroup sends sig to every process in the group led by pid. It
// reports false when the group is empty.
func signalGroup(pid int, sig syscall.Signal) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(-pid, sig)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
