//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// Group is a process group: the process Start started, its leader, and
// whatever it starts.
type Group struct{ pid int }

// Start starts cmd as the leader of a new process group.
func Start(cmd *exec.Cmd) (*Group, error) { return start(cmd, deathSignal) }

// start starts cmd as the leader of a new process group, which the kernel
// kills with this process when kernel is true.
func start(cmd *exec.Cmd, kernel bool) (*Group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if kernel {
		dieWithParent(cmd.SysProcAttr)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Group{pid: cmd.Process.Pid}, nil
}

// Signal sends sig to every process in the group (0 sends nothing). It
// reports false when the group is empty.
func (g *Group) Signal(sig syscall.Signal) bool {
	if g.pid <= 0 {
		return false
	}
	err := syscall.Kill(-g.pid, sig)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// Close releases the group. A process group needs no releasing.
func (g *Group) Close() {}
