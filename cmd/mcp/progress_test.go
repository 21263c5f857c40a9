//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/mcpsh/mcp/internal/exit"
)

// progressEnv is serveEnv with a TMPDIR of its own, so that the
// multiplexers the test starts can be stopped when it ends.
func progressEnv(t *testing.T) []string {
	t.Helper()
	tmp := t.TempDir()
	t.Cleanup(func() { stopDaemons(t, tmp) })
	return append(serveEnv(t), "TMPDIR="+tmp, "XDG_RUNTIME_DIR=")
}

// runOnTerminal runs mcp with its stderr on a pseudo-terminal of cols
// columns (stdout is a pipe) and returns its exit code, stdout and all it
// wrote to the terminal.
func runOnTerminal(t *testing.T, env []string, cols int, args ...string) (code int, stdout, term string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: uint16(cols)}); err != nil {
		t.Fatalf("pty size: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpBinary(t), args...)
	cmd.Env = append(cmd.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var termOut bytes.Buffer
	copied := make(chan struct{})
	go func() {
		// The read ends with EIO once every holder of the terminal is gone.
		_, _ = io.Copy(&termOut, ptmx)
		close(copied)
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("mcp %v: %v", args, err)
	}
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal did not close")
	}
	return code, out.String(), termOut.String()
}

const longOp = "everything.trigger-long-running-operation"

// TestCall_progressLine: on a terminal the latest progress of a call
// shows on one stderr line, overwritten in place and cleared at the end;
// with --json or NO_COLOR it does not show.
func TestCall_progressLine(t *testing.T) {
	t.Parallel()
	env, recipe := progressEnv(t), serveRecipe(t)
	args := []string{"--recipe", recipe, "call", longOp, "duration=0.8", "steps=4"}
	code, stdout, term := runOnTerminal(t, env, 80, args...)
	if code != 0 || !strings.Contains(stdout, "Long running operation completed") {
		t.Fatalf("exit %d, stdout %q, terminal %q", code, stdout, term)
	}
	for i := 1; i <= 4; i++ {
		if want := "\r\x1b[Kmcp: " + longOp + ": " + strconv.Itoa(i) + " of 4"; !strings.Contains(term, want) {
			t.Errorf("terminal %q lacks %q", term, want)
		}
	}
	if !strings.HasSuffix(term, "4 of 4\r\x1b[K") {
		t.Errorf("terminal %q: the progress line is not cleared at the end", term)
	}

	for _, tt := range []struct {
		name string
		env  []string
		args []string
	}{
		{"json", env, append([]string{"--json"}, args...)},
		{"NO_COLOR", append(env[:len(env):len(env)], "NO_COLOR=1"), args},
	} {
		code, stdout, term := runOnTerminal(t, tt.env, 80, tt.args...)
		if code != 0 || !strings.Contains(stdout, "Long running operation completed") {
			t.Errorf("%s: exit %d, stdout %q", tt.name, code, stdout)
		}
		if term != "" {
			t.Errorf("%s: terminal %q, want nothing", tt.name, term)
		}
	}
}

// TestRun_consoleAboveProgress: what a program prints while a call shows
// its progress starts a line of its own: the progress line is cleared
// first, and the call's next report draws it again.
func TestRun_consoleAboveProgress(t *testing.T) {
	t.Parallel()
	env, recipe := progressEnv(t), serveRecipe(t)
	// The log comes 1.5 s into a call that reports at 1, 2, 3 and 4 s.
	prog := `await mcp.call("everything.echo", {message: "warm"});
const op = mcp.callRaw("` + longOp + `", {duration: 4, steps: 4});
await new Promise(r => setTimeout(r, 1500));
console.log("note");
await op;
"done"`
	code, stdout, term := runOnTerminal(t, env, 80, "--recipe", recipe, "run", "-e", prog)
	if code != 0 || !strings.Contains(stdout, "done") {
		t.Fatalf("exit %d, stdout %q, terminal %q", code, stdout, term)
	}
	i := strings.Index(term, "note")
	if i < 0 {
		t.Fatalf("terminal %q lacks the note", term)
	}
	if before := term[:i]; !strings.HasSuffix(before, "\n") && !strings.HasSuffix(before, "\r\x1b[K") && before != "" {
		t.Errorf("terminal %q: the note shares a line with the progress", term)
	}
	if !strings.Contains(term[i:], "mcp: "+longOp+": ") {
		t.Errorf("terminal %q: no progress after the note", term)
	}
}

// TestCall_timeoutIsSilence: --timeout is the longest silence. A call
// longer than it that reports progress more often succeeds; one that is
// silent for longer fails with the timeout error. Off a terminal nothing
// of the progress shows.
func TestCall_timeoutIsSilence(t *testing.T) {
	t.Parallel()
	env, recipe := progressEnv(t), serveRecipe(t)
	// A warm multiplexer: the server's start is not part of what is timed.
	if code, _, stderr := runMCP(t, env, "--recipe", recipe, "call", "everything.echo", "message=hi"); code != 0 {
		t.Fatalf("warm-up: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runMCP(t, env, "--recipe", recipe, "--timeout", "2s", "call", longOp, "duration=4", "steps=8")
	if code != 0 || !strings.Contains(stdout, "Long running operation completed") {
		t.Errorf("4s call reporting every 0.5s under --timeout 2s: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr off a terminal = %q, want nothing", stderr)
	}
	code, _, stderr = runMCP(t, env, "--recipe", recipe, "--timeout", "1s", "call", longOp, "duration=3", "steps=1")
	if want := "mcp: error: timed out after 1s: server everything did not answer in time\n"; code != exit.Upstream || !strings.HasPrefix(stderr, want) {
		t.Errorf("3s of silence under --timeout 1s: exit %d, stderr %q; want %d, %q", code, stderr, exit.Upstream, want)
	}
}

// TestRun_timeoutIsSilence: in mcp run too, progress restarts --timeout;
// a busy loop, which reports nothing, is still stopped by it.
func TestRun_timeoutIsSilence(t *testing.T) {
	t.Parallel()
	env, recipe := progressEnv(t), serveRecipe(t)
	if code, _, stderr := runMCP(t, env, "--recipe", recipe, "call", "everything.echo", "message=hi"); code != 0 {
		t.Fatalf("warm-up: exit %d: %s", code, stderr)
	}
	// The margin is wide: the mcp of these tests is built with the race
	// detector, and a busy machine slows it down.
	prog := `(await mcp.callRaw("everything.trigger-long-running-operation", {duration: 6, steps: 12})).content[0].text`
	code, stdout, stderr := runMCP(t, env, "--recipe", recipe, "--timeout", "3s", "run", "-e", prog)
	if code != 0 || !strings.Contains(stdout, "Long running operation completed") {
		t.Errorf("6s call reporting every 0.5s under --timeout 3s: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runMCP(t, env, "--recipe", recipe, "--timeout", "1s", "run", "-e", "for (;;) {}")
	if want := "mcp: error: program exceeded its time limit of 1s\n"; !strings.HasPrefix(stderr, want) {
		t.Errorf("busy loop under --timeout 1s: exit %d, stderr %q, want %q", code, stderr, want)
	}
}
