//go:build unix && !linux

package procgroup

import (
	"errors"
	"syscall"
	"testing"
)

// groupAlive reports whether a process is in group pgid.
func groupAlive(t *testing.T, pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// openFiles is not known here.
func openFiles(*testing.T, int) (map[int]string, bool) { return nil, false }

func inherited(int, string) bool { return false }
