package script

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"golang.org/x/sys/windows"
)

// holderEnv makes the test binary start the process of the program it
// holds, as mcp run does, print that process's id, and wait to be killed.
const holderEnv = "MCPSH_SCRIPT_CHILD_HOLDER"

func init() {
	src := os.Getenv(holderEnv)
	if src == "" {
		return
	}
	os.Unsetenv(holderEnv)
	c := StartChild()
	if c.err != nil {
		fmt.Println(c.err)
		os.Exit(1)
	}
	go c.Run(context.Background(), newHost(&recorder{}), "prog.js", src, Limits{Timeout: -1}, nil)
	fmt.Println(c.cmd.Process.Pid)
	time.Sleep(time.Minute)
	os.Exit(1)
}

// The program's process ends with a killed mcp run at once, with its job,
// even while its program is stuck in a builtin, from which it would
// learn that its pipes closed only after abandonGrace.
func TestChild_endsWithKilledParent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+`/^(a+)+\1$/.test("a".repeat(40) + "b")`)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	pid, perr := strconv.ParseUint(strings.TrimSpace(line), 10, 32)
	if err != nil || perr != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the holder said %q (%v)", line, err)
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	time.Sleep(300 * time.Millisecond) // the program is stuck
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	ev, err := windows.WaitForSingleObject(h, 10000)
	took := time.Since(killed)
	if ev != windows.WAIT_OBJECT_0 {
		_ = windows.TerminateProcess(h, 1)
		t.Fatalf("the program's process still ran %v after mcp run was killed (%v)", took, err)
	}
	t.Logf("the program's process ended %v after mcp run was killed", took)
	if took >= abandonGrace {
		t.Errorf("the program's process ended %v after mcp run was killed: as its pipes closed, not with its job", took)
	}
}

// What grows without end: step by step, doubling at each step (which no
// sampling of the heap stops in time), and in one builtin.
var allocators = []string{
	`let s = "ab"; while (true) s = s + s`,
	`const a = []; while (true) a.push("x".repeat(1000) + a.length)`,
	`new Array(3e7).fill(1.5)`,
}

// A program that allocates past its memory limit, in a process of its
// own, ends with the error and the exit code it ends with on Linux; one
// that keeps under the limit comes to its value.
func TestRunIsolated_memoryLimitWindows(t *testing.T) {
	lim := Limits{MaxMemory: 64 << 20, Timeout: time.Minute}
	for _, src := range allocators {
		_, err := RunIsolated(context.Background(), newHost(&recorder{}), "prog.js", src, lim, nil)
		var le *LimitError
		if !errors.As(err, &le) || le.Kind != "memory" || err.Error() != "program exceeded its memory limit of 64 MiB" {
			t.Errorf("%s: %v; want the memory limit of 64 MiB", src, err)
		}
		if code := exit.Code(err); code != exit.Usage {
			t.Errorf("%s: exit code %d, want %d", src, code, exit.Usage)
		}
	}
	v, err := RunIsolated(context.Background(), newHost(&recorder{}), "prog.js", `"x".repeat(16 << 20).length`, lim, nil)
	if err != nil || string(v) != "16777216" {
		t.Errorf("a program under the limit: %s, %v; want 16777216", v, err)
	}
}

// The peak memory of a program's process, as this one sees it from
// outside, stays within one and a half times the limit of 256 MiB.
func TestRunIsolated_peakNearLimitWindows(t *testing.T) {
	const limit = 256 << 20
	for _, src := range allocators {
		c := StartChild()
		if c.err != nil {
			t.Fatal(c.err)
		}
		h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_VM_READ, false, uint32(c.cmd.Process.Pid))
		if err != nil {
			c.Close()
			t.Fatal(err)
		}
		var counters processMemoryCounters
		base := processPeak(h, &counters)
		done := make(chan error, 1)
		go func() {
			_, err := c.Run(context.Background(), newHost(&recorder{}), "prog.js", src, Limits{MaxMemory: limit, Timeout: time.Minute}, nil)
			done <- err
		}()
		peak := base
		for err = nil; ; time.Sleep(time.Millisecond) {
			peak = max(peak, processPeak(h, &counters))
			select {
			case err = <-done:
			default:
				continue
			}
			break
		}
		windows.CloseHandle(h)
		t.Logf("%s: peak %d MiB, from %d MiB at its start, for a limit of %d MiB; %v", src, peak>>20, base>>20, limit>>20, err)
		var le *LimitError
		if !errors.As(err, &le) || le.Kind != "memory" {
			t.Errorf("%s: %v; want the memory limit", src, err)
		}
		if base <= 0 || peak > limit*3/2 {
			t.Errorf("%s: the peak memory of the program's process was %d MiB (%d MiB at its start) for a limit of %d MiB", src, peak>>20, base>>20, limit>>20)
		}
	}
}
