//go:build unix && !linux

package procgroup

import "syscall"

// deathSignal is false here: darwin has no parent-death signal, and
// FreeBSD's, like Linux's, would end the leader alone. A watchdog in each
// group ends all of it when this process ends.
const deathSignal = false

// dieWithParent is never asked for here.
func dieWithParent(*syscall.SysProcAttr) {}
