package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Group is the process Start started. Windows has no process groups to
// use here, so only that process itself can be stopped.
type Group struct{ p *os.Process }

// Start starts cmd.
func Start(cmd *exec.Cmd) (*Group, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Group{p: cmd.Process}, nil
}

// Signal stops the process on SIGKILL and does nothing otherwise, as
// Windows has no other signal to send it. It reports whether the process
// was killed.
func (g *Group) Signal(sig syscall.Signal) bool {
	if sig != syscall.SIGKILL {
		return false
	}
	return g.p.Kill() == nil
}

// Close releases the group.
func (g *Group) Close() {}
