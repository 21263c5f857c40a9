//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// Group is a process group: the process Start started, its leader, and
// whatever it starts; where the kernel does not end the leader with this
// process, a watchdog too.
type Group struct {
	pid int
	dog *watchdog // nil when the kernel ends the leader, or it ended before it could be watched
}

// Start starts cmd as the leader of a new process group.
func Start(cmd *exec.Cmd) (*Group, error) { return start(cmd, deathSignal) }

// start starts cmd as the leader of a new process group, which the kernel
// kills with this process when kernel is true, and a watchdog in the group
// ends otherwise. A server that cannot be watched is not left running.
func start(cmd *exec.Cmd, kernel bool) (*Group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if kernel {
		dieWithParent(cmd.SysProcAttr)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{pid: cmd.Process.Pid}
	if kernel {
		return g, nil
	}
	dog, err := watch(g.pid)
	if err != nil {
		// A group that is gone already needs no watching.
		if g.Signal(0) {
			g.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			return nil, fmt.Errorf("watch process group %d: %w", g.pid, err)
		}
		return g, nil
	}
	g.dog = dog
	return g, nil
}

// Signal sends sig to every process in the group (0 sends nothing). It
// reports false when the group is empty. A watchdog ignores SIGTERM;
// Signal(0), which asks whether the server left any process behind,
// dismisses it first, so that only the server's processes count.
func (g *Group) Signal(sig syscall.Signal) bool {
	if g.pid <= 0 {
		return false
	}
	if sig == 0 && g.dog != nil {
		g.dog.dismiss()
	}
	err := syscall.Kill(-g.pid, sig)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// Close releases the group: its watchdog, if it has one, leaves it.
func (g *Group) Close() {
	if g.dog != nil {
		g.dog.dismiss()
	}
}
