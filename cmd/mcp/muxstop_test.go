//go:build unix

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// A call in flight when mcp daemon stop stops its multiplexer ends at
// once, in one line that says what happened and that the server may have
// run it, with exit 4: not "multiplexer: EOF".
func TestDaemonStopDuringACall(t *testing.T) {
	m := newMuxEnv(t)
	m.must("call", "fake.echo", "message=warm")
	socket := m.socket("")
	before := m.status(socket).Requests
	var stdout, stderr bytes.Buffer
	cmd := m.command(nil, "call", "fake.sleep", "ms=30000")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The call is one request more, and this status another.
	if !eventually(10*time.Second, func() bool { return m.status(socket).Requests >= before+3 }) {
		t.Fatal("the call never reached the multiplexer")
	}
	time.Sleep(300 * time.Millisecond) // on to the server
	start := time.Now()
	if r := m.run(nil, "daemon", "stop"); r.code != 0 {
		t.Fatalf("daemon stop: exit %d, %q", r.code, r.stderr)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	want := "mcp: error: the multiplexer was stopped (mcp daemon stop) before the call of fake.sleep finished: the server may have run it\n"
	if code != exit.Upstream || stdout.String() != "" || stderr.String() != want {
		t.Errorf("a call during daemon stop: exit %d (want %d), stdout %q, stderr %q, want %q", code, exit.Upstream, stdout.String(), stderr.String(), want)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the call ended %v after the stop", took.Round(time.Millisecond))
	}
	if strings.Contains(stderr.String(), "EOF") {
		t.Errorf("the call's error speaks of the socket: %q", stderr.String())
	}
}
