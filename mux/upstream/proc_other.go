//go:build !unix

package upstream

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup is a no-op where process groups are not available; Close then
// stops only the direct child.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup stops the process pid itself: there is no group to signal.
func signalGroup(pid int, sig syscall.Signal) bool {
	if pid <= 0 || sig != sigKill {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Kill() == nil
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
