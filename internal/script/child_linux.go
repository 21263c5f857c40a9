package script

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

const isolated = true

// childAttr keeps the child out of the terminal's signals (mcp run decides
// when it stops) and ends it with mcp run.
func childAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// limitMemory is how the process of a program holds itself to its memory
// limit: with the operating system, here (a variable, so that a test can
// run the watchdog of the systems that do not enforce RLIMIT_AS).
var limitMemory = limitAddressSpace

// limitAddressSpace holds this process's address space to max bytes more than
// it has now (the runtime has reserved what it keeps for itself by then),
// plus memHeadroom. RLIMIT_AS, because the Go runtime reserves address
// space before it maps memory in it: a reservation past the limit fails at
// once, before a byte of it is touched, where RLIMIT_DATA is checked only
// as mappings grow in total, which mapping over a reservation does not, so
// that one allocation can take it past the limit by its own size. An
// allocation past the limit is the runtime's fatal out of memory, which
// RunIsolated reports as the memory limit. The garbage collector is told
// of the limit too, so that garbage is collected before it counts.
func limitAddressSpace(max int) {
	if max <= 0 {
		return
	}
	base, data := status("VmSize:"), status("VmData:")
	if base <= 0 || data <= 0 {
		return
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) != nil {
		return
	}
	if want := uint64(base) + uint64(max) + memHeadroom(max); want < rl.Cur {
		rl.Cur = want
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &rl)
	}
	debug.SetMemoryLimit(data + int64(max))
}

// memHeadroom is what the runtime needs beside a heap of max bytes: its
// metadata, goroutine stacks and the spans it has not yet given back; and,
// when the C library makes the threads (a build with cgo, such as a test
// build with -race), the address space their stacks reserve, one
// RLIMIT_STACK each (mostly untouched), for as many threads as the
// runtime is likely to start.
func memHeadroom(max int) uint64 {
	room := uint64(max)/16 + 16<<20
	if cgoThreads {
		stack := uint64(8 << 20)
		var rl syscall.Rlimit
		if syscall.Getrlimit(syscall.RLIMIT_STACK, &rl) == nil && rl.Cur >= 1<<20 && rl.Cur <= 64<<20 {
			stack = rl.Cur
		}
		room += uint64(runtime.GOMAXPROCS(0)+24) * stack
	}
	return room
}

// status is a field of /proc/self/status given in kB, in bytes, or -1.
func status(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return n << 10
		}
	}
	return -1
}
