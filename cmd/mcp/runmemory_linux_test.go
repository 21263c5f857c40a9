package main

import (
	"syscall"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// A program that doubles a string until it runs out of memory asks, in
// one step of the engine, for more than it holds, which no sampling of the
// heap stops in time. mcp run ends it with the one line of the memory limit
// (none of the runtime's trace), and its processes never hold much more
// than the limit of 1 GiB.
func TestRun_memoryLimitHoldsInOneStep(t *testing.T) {
	m := newMuxEnv(t)
	cmd := m.command([]string{"MCP_NO_MUX=1"}, "run", "-e", `let s = "ab"; while (true) s = s + s`)
	r := runProcess(t, cmd)
	if want := "mcp: error: program exceeded its memory limit of 1024 MiB\n"; r.code != exit.Usage || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and stderr %q", r.code, r.stdout, r.stderr, exit.Usage, want)
	}
	// The largest of mcp run and the processes it waited for, in kB.
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("peak resident memory %d MiB", peak>>10)
	if limit := int64(1 << 20); peak > limit*5/4 {
		t.Errorf("peak resident memory %d MiB for a limit of 1024 MiB", peak>>10)
	}
}
