package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A call of a tool that requires a task cancels the task upstream
// (tasks/cancel) when --timeout passes or the person presses Ctrl-C, with
// and without a multiplexer.
func TestCall_taskCancel(t *testing.T) {
	for _, tt := range []struct {
		name      string
		env       []string
		interrupt bool
		code      int
	}{
		{"timeout", nil, false, 4},
		{"timeout/direct", []string{"MCP_NO_MUX=1"}, false, 4},
		{"interrupt", nil, true, 4},
		{"interrupt/direct", []string{"MCP_NO_MUX=1"}, true, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMuxEnv(t)
			exe, _ := os.Executable()
			if err := os.Symlink(exe, filepath.Join(filepath.Dir(m.root), "bin", "task-server")); err != nil {
				t.Fatal(err)
			}
			mark := filepath.Join(filepath.Dir(m.root), "cancelled")
			writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "fake": {"command": "task-server", "env": {"FAKE_TASK_MARK": "`+mark+`"}},
  "other": {"command": "fake-server"}}}`)
			m.trust()
			args := []string{"call", "fake.taskwait"}
			if !tt.interrupt {
				args = append([]string{"--timeout", "700ms"}, args...)
			}
			cmd := m.command(tt.env, args...)
			if tt.interrupt {
				time.AfterFunc(time.Second, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
			}
			res := runProcess(t, cmd)
			if res.code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", res.code, tt.code, res.stderr)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				if b, _ := os.ReadFile(mark); string(b) == "cancelled" {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("the task was never cancelled upstream; stderr:\n%s", res.stderr)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
