//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package script

import (
	"os/exec"
	"syscall"
)

// A program runs in a process of its own, as on Linux, held to its memory
// limit by a watchdog on its resident memory (watchResident): these
// systems do not enforce RLIMIT_AS.
const isolated = true

// childAttr keeps the child out of the terminal's signals (mcp run decides
// when it stops). With no parent-death signal, the child ends with mcp
// run when the pipe it reads its messages from closes: it cancels its
// run, and Run gives up a stuck one after abandonGrace (ChildMain).
func childAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func limitMemory(max int) { watchResident(max) }
