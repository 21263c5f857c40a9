//go:build unix && !linux

package procgroup

import "syscall"

// deathSignal says that the kernel has no parent-death signal here.
const deathSignal = false

// dieWithParent does nothing where the kernel has no parent-death signal:
// a server of a killed multiplexer ends when it sees the end of its stdin.
func dieWithParent(*syscall.SysProcAttr) {}
