//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// Waiting for input is waiting: --args and mcp run read a pipe or FIFO
// that never writes for at most --timeout, then end with exit 4.
func TestIdleInputEndsAtTimeout(t *testing.T) {
	m := newMuxEnv(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"call", "fake.echo", "--args", "@" + fifo}, "mcp: error: --args: nothing came from " + fifo + " for 1s (--timeout)"},
		{[]string{"call", "fake.echo", "--args", "-"}, "mcp: error: --args: nothing came from stdin for 1s (--timeout)"},
		{[]string{"run", "-"}, "mcp: error: the program: nothing came from stdin for 1s (--timeout)"},
		{[]string{"run"}, "mcp: error: the program: nothing came from stdin for 1s (--timeout)"},
		{[]string{"run", fifo}, "mcp: error: the program: nothing came from " + fifo + " for 1s (--timeout)"},
	}
	for _, c := range cases {
		// stdin is a pipe whose writer stays open and silent.
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := m.command(nil, append(c.args, "--timeout", "1s")...)
		var stderr bytes.Buffer
		cmd.Stdin, cmd.Stderr = r, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%v: still waiting for input 15s after a --timeout of 1s", c.args)
			w.Close()
			continue
		}
		w.Close()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != exit.Upstream || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, want %d; stderr should be one line holding %q\nstderr: %s", c.args, code, exit.Upstream, c.want, stderr.String())
		}
	}
}
