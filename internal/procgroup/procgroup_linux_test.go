package procgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// groupAlive reports whether a process that has not ended is in group
// pgid. Ended ones are left out: an orphan waits here for whatever reaps
// orphans, which in a container may be nothing.
func groupAlive(t *testing.T, pgid int) bool {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	for _, stat := range stats {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold anything.
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// openFiles is what each open descriptor of process pid refers to.
func openFiles(t *testing.T, pid int) (map[int]string, bool) {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fds := map[int]string{}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			fds[fd] = target
		}
	}
	return fds, true
}

// inherited reports whether this process has descriptor fd open on target
// without close-on-exec: one it was given by whoever started it, which
// every process it starts inherits, not one of its own.
func inherited(fd int, target string) bool {
	own, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || own != target {
		return false
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil && flags&unix.FD_CLOEXEC == 0
}
