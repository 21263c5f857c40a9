package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// residentWatchdogEnv makes the test binary, as the process of a program,
// hold itself to the memory limit as it does where RLIMIT_AS is not
// enforced (macOS): with the watchdog on its resident memory, and no
// limit on its address space.
const residentWatchdogEnv = "MCPSH_SCRIPT_RESIDENT_WATCHDOG"

// residentParentEnv makes the test binary run the program it holds in a
// process of its own, with the watchdog, under a memory limit of 256 MiB,
// and print that process's peak resident memory in MiB, the run's error
// and the head of the process's stderr: "PEAK\tERR\tSTDERR". Linux keeps
// the high-water mark of a process's memory across execve, so the program
// is started, as by mcp run, from a process that is still small, not from
// the test process that has run other tests.
const residentParentEnv = "MCPSH_SCRIPT_RESIDENT_PARENT"

func init() {
	if os.Getenv(residentWatchdogEnv) == "1" {
		limitMemory = watchResident
	}
	src := os.Getenv(residentParentEnv)
	if src == "" {
		return
	}
	os.Unsetenv(residentParentEnv)
	c := startChild(residentWatchdogEnv + "=1")
	h := &fakeHost{ToolsFunc: func() map[string][]string { return nil }}
	_, err := c.Run(context.Background(), h, "prog.js", src, Limits{MaxMemory: 256 << 20, Timeout: time.Minute}, nil)
	var peak int64 = -1
	if ru, ok := c.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = maxrssBytes(ru) >> 20
	}
	fmt.Printf("%d\t%v\t%s\n", peak, err, strings.TrimSpace(c.childErr.String()))
	os.Exit(0)
}

// The watchdog ends a program that allocates without end at the memory
// limit, even one whose every step doubles what it holds (s = s + s),
// which no sampling of the heap stops in time: the peak resident memory
// of the program's process stays within one and a half times the limit.
func TestRunIsolated_residentWatchdog(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`let s = "ab"; while (true) s = s + s`,
		`const a = []; while (true) a.push("x".repeat(1000) + a.length)`,
	} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), residentParentEnv+"="+src)
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s: %v\n%s", src, err, ee.Stderr)
		}
		peak, rest, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
		var mib int
		if _, err := fmt.Sscan(peak, &mib); err != nil || mib <= 0 {
			t.Fatalf("%s: the process that ran it said %q", src, out)
		}
		t.Logf("%s: peak %d MiB; %s", src, mib, rest)
		if !strings.HasPrefix(rest, "program exceeded its memory limit of 256 MiB") {
			t.Errorf("%s: the run did not end at the memory limit: %s", src, rest)
		}
		if mib > 256*3/2 {
			t.Errorf("%s: the peak resident memory of the program's process was %d MiB for a limit of 256 MiB", src, mib)
		}
	}
}
