//go:build linux

package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// sample is one child process: its wall time, from just before it was
// started to just after it was reaped, and its CPU time (user + system)
// and peak resident set as wait4 reported them.
type sample struct {
	wall   time.Duration
	cpu    time.Duration
	maxRSS int64 // bytes
}

// child is a command to run and what its output must hold.
type child struct {
	dir  string
	env  []string
	want string // stdout must contain it
	argv []string
	// check, if set, also judges stdout.
	check func(stdout string) error
	// stderrTo, if set, takes stderr instead of a pipe (whose end a
	// process started under Wine may hold).
	stderrTo *os.File
}

// run starts c, waits for it and checks that it exited 0 and printed want.
func (c child) run() (sample, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.stderrTo != nil {
		cmd.Stderr = c.stderrTo
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v: %s", strings.Join(c.argv, " "), err, tail(stderr.String()))
	}
	if !strings.Contains(stdout.String(), c.want) {
		return sample{}, fmt.Errorf("%s: printed %q, not %q; stderr: %s", strings.Join(c.argv, " "), tail(stdout.String()), c.want, tail(stderr.String()))
	}
	if c.check != nil {
		if err := c.check(stdout.String()); err != nil {
			return sample{}, fmt.Errorf("%s: %v", strings.Join(c.argv, " "), err)
		}
	}
	s := sample{wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.maxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return s, nil
}

// output runs c and returns its stdout and stderr, whatever its exit status.
func (c child) output() (string, string, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.stderrTo != nil {
		cmd.Stderr = c.stderrTo
	}
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

// series is the samples of one measurement.
type series struct {
	samples []sample
}

func (s *series) add(x sample) { s.samples = append(s.samples, x) }

func (s *series) walls() []float64 {
	out := make([]float64, len(s.samples))
	for i, x := range s.samples {
		out[i] = float64(x.wall) / float64(time.Millisecond)
	}
	return out
}

func (s *series) cpus() []float64 {
	out := make([]float64, len(s.samples))
	for i, x := range s.samples {
		out[i] = float64(x.cpu) / float64(time.Millisecond)
	}
	return out
}

func (s *series) rss() []float64 {
	out := make([]float64, len(s.samples))
	for i, x := range s.samples {
		out[i] = float64(x.maxRSS) / (1 << 20)
	}
	return out
}

// median is the middle value (the mean of the two middle ones for an even
// count); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100); NaN for none.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}
