package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// memoryChildEnv makes the test binary run the program it holds with a
// memory limit of 128 MiB and print its peak resident memory (VmHWM) and
// the run's error, in kB: "BASE PEAK ERR".
const memoryChildEnv = "MCPSH_SCRIPT_MEMORY_CHILD"

func init() {
	src := os.Getenv(memoryChildEnv)
	if src == "" {
		return
	}
	base := vmHWM()
	h := &fakeHost{ToolsFunc: func() map[string][]string { return nil }}
	_, err := Run(context.Background(), h, "child.js", src, Limits{MaxMemory: 128 << 20}, nil)
	fmt.Printf("%d %d %v\n", base, vmHWM(), err)
	os.Exit(0)
}

// vmHWM is this process's peak resident memory in kB, or -1.
func vmHWM() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return -1
}

// A builtin that fills memory in one go (Array.prototype.fill,
// String.prototype.repeat and padStart/padEnd) is stopped before it
// allocates past the limit, rather than run to its end, far past it: the
// peak stays within one and a half times the limit above where it began.
func TestRun_memoryPeakNearLimit(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`new Array(3e7).fill(1.5)`,
		`"ab".repeat(3e8).length`,
		`"".padStart(6e8, "x").length`,
	} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), memoryChildEnv+"="+src)
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s: %v\n%s", src, err, ee.Stderr)
		}
		var base, peak int
		var rest string
		if _, err := fmt.Sscanf(string(out), "%d %d", &base, &peak); err != nil || base <= 0 {
			t.Fatalf("%s: child said %q", src, out)
		}
		rest = strings.TrimSpace(string(out))
		if !strings.Contains(rest, "program exceeded its memory limit of 128 MiB") {
			t.Errorf("%s: the run did not end at the memory limit: %s", src, rest)
		}
		if grown := peak - base; grown > 128<<10*3/2 {
			t.Errorf("%s: peak memory grew by %d MiB for a limit of 128 MiB", src, grown>>10)
		}
	}
}

// The guarded builtins answer as before, errors included.
func TestRun_guardedBuiltinsUnchanged(t *testing.T) {
	t.Parallel()
	h := &fakeHost{ToolsFunc: func() map[string][]string { return nil }}
	const src = `[
		[1, 2, 3].fill(0, 1).join(), "ab".repeat(3), "7".padStart(3, "0"), "7".padEnd(3, "-"),
		(() => { try { "a".repeat(-1) } catch (e) { return e instanceof RangeError } })(),
		(() => { try { Array.prototype.fill.call(null, 1) } catch (e) { return e instanceof TypeError } })(),
		Object.keys(Array.prototype).includes("fill"), "x".repeat(1 << 20).length,
	]`
	v, err := Run(context.Background(), h, "t.js", src, Limits{MaxMemory: 64 << 20}, nil)
	if want := `["1,0,0","ababab","007","7--",true,true,false,1048576]`; err != nil || string(v) != want {
		t.Errorf("got %s, %v; want %s", v, err, want)
	}
}
