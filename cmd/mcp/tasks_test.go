//go:build unix

package main

import (
	"bytes"
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
				args = append([]string{"--timeout", "3s"}, args...)
			}
			cmd := m.command(tt.env, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := false
			t.Cleanup(func() {
				if !waited {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
				}
			})
			if tt.interrupt {
				// Ctrl-C once the task runs.
				waitFile(t, mark+".started", "started")
				_ = cmd.Process.Signal(syscall.SIGINT)
			}
			_ = cmd.Wait()
			waited = true
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			waitFile(t, mark, "cancelled")
		})
	}
}

// waitFile waits up to 20 s for the file name to hold want.
func waitFile(t *testing.T, name, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, _ := os.ReadFile(name); string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never said %q", name, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
