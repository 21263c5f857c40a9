//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd || windows

package script

import (
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// residentSampling is how often the watchdog looks at the process's peak
// resident memory.
const residentSampling = 2 * time.Millisecond

// watchResident holds this process to max bytes of resident memory more
// than it has now, plus residentHeadroom, where the operating system does
// not enforce a limit of its own (macOS, which ignores RLIMIT_AS): a
// goroutine reads the high-water mark of the process's resident memory
// (residentMeter) every residentSampling and, once it is past, writes
// residentMarker to stderr and exits, which the parent (Child.lost)
// reports as the memory limit. What one step allocates at once (s = s +
// s) counts as its pages are touched, so the step is stopped part way.
// The garbage collector is told of the limit too, so that garbage is
// collected before it counts. The goroutine lives as long as the
// process, which runs one program. Linux keeps a process's high-water
// mark across execve, so the base may be what the parent held when it
// started this process: mcp run starts it first, while it is small.
func watchResident(max int) {
	if max <= 0 {
		return
	}
	m := new(residentMeter)
	base := m.peak()
	if base <= 0 {
		return
	}
	debug.SetMemoryLimit(base + int64(max))
	// The watchdog needs a processor of its own while one runs the
	// program and another the collector's worker, which, to scan the
	// stack of a program in the middle of one long copy (s + s), waits
	// on its processor for the copy to end.
	if runtime.GOMAXPROCS(0) < 3 {
		runtime.GOMAXPROCS(3)
	}
	limit := base + int64(max) + residentHeadroom(max)
	go func() {
		t := time.NewTicker(residentSampling)
		defer t.Stop()
		for range t.C {
			if m.peak() > limit {
				_, _ = os.Stderr.WriteString(residentMarker + "\n")
				os.Exit(2)
			}
		}
	}()
}

// residentHeadroom is what the process may hold beside max bytes of the
// program's: the runtime's metadata, goroutine stacks, spans not yet
// given back, and what one sampling period lets a step add.
func residentHeadroom(max int) int64 { return int64(max)/16 + 16<<20 }
