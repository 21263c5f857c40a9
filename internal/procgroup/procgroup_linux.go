package procgroup

import "syscall"

// deathSignal says that the kernel can end a child with its parent here.
const deathSignal = true

// dieWithParent has the kernel kill the child when this process dies, even
// by SIGKILL: a multiplexer that is killed leaves no server behind, not
// even one that ignores the end of its stdin. (The signal follows the
// death of the thread that started the child; Go ends threads only for
// goroutines locked to them, which this package never does.)
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
