//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsh/mcp/mux"
)

// descendants lists the live processes below pid (children, their
// children, …), read from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	slices.Sort(out)
	return out
}

// parentOf reads a live (not zombie) process's parent from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name is in parentheses and may hold anything: fields
	// start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	_, ok := parentOf(pid)
	return ok
}

// cmdline is a process's argv joined by spaces.
func cmdline(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// memStatus is a process's peak and current resident set, from
// /proc/PID/status.
type memStatus struct {
	hwm, rss int64 // bytes
}

func readMem(pid int) (memStatus, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStatus{}, err
	}
	defer f.Close()
	var m memStatus
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmHWM" && k != "VmRSS") {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("/proc/%d/status: unexpected %s line %q", pid, k, v)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, err
		}
		if k == "VmHWM" {
			m.hwm = n * 1024
		} else {
			m.rss = n * 1024
		}
	}
	if m.hwm == 0 || m.rss == 0 {
		return m, fmt.Errorf("/proc/%d/status: no VmHWM or VmRSS", pid)
	}
	return m, sc.Err()
}

// muxProc is a running multiplexer: its socket and its pid, which the
// socket's lock file holds.
type muxProc struct {
	socket string
	pid    int
}

// multiplexers lists the multiplexers running under sockDir, the TMPDIR
// every mcp of this benchmark runs with (sockets are in mcp-UID below it).
func multiplexers(sockDir string) ([]muxProc, error) {
	locks, err := filepath.Glob(filepath.Join(sockDir, "mcp-*", "*.sock.lock"))
	if err != nil {
		return nil, err
	}
	var out []muxProc
	for _, l := range locks {
		socket := strings.TrimSuffix(l, ".lock")
		if !mux.Running(socket) {
			continue
		}
		b, err := os.ReadFile(l)
		if err != nil {
			return nil, err
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", l, err)
		}
		out = append(out, muxProc{socket: socket, pid: pid})
	}
	return out, nil
}

// theMultiplexer is the one multiplexer running under sockDir.
func theMultiplexer(sockDir string) (muxProc, error) {
	ms, err := multiplexers(sockDir)
	if err != nil {
		return muxProc{}, err
	}
	if len(ms) != 1 {
		return muxProc{}, fmt.Errorf("%d multiplexers are running, want 1", len(ms))
	}
	return ms[0], nil
}

// stopMultiplexers ends every multiplexer under sockDir the way a service
// manager would, with SIGTERM: it closes its upstream servers, removes its
// socket and drops its lock. It returns once the lock is free and every
// process it had started is gone.
func stopMultiplexers(sockDir string) error {
	ms, err := multiplexers(sockDir)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range ms {
		below := descendants(m.pid)
		if err := syscall.Kill(m.pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, err)
			continue
		}
		if !mux.WaitGone(m.socket, 15*time.Second) {
			errs = append(errs, fmt.Errorf("multiplexer %d still holds its lock 15s after SIGTERM", m.pid))
			continue
		}
		for _, p := range append(below, m.pid) {
			if !waitExit(p, 10*time.Second) {
				errs = append(errs, fmt.Errorf("process %d (%s) outlived its multiplexer by 10s", p, cmdline(p)))
			}
		}
	}
	return errors.Join(errs...)
}

func waitExit(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
