//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/mux"
)

// terminalVars are what terminals, tabs, windows and SSH logins set on
// their own, each a different value per tab (Terminal.app and iTerm2,
// GNOME Terminal, kitty, WezTerm, VS Code, tmux, SSH).
func terminalVars(tab string) []string {
	return []string{
		"TERM_SESSION_ID=" + tab, "GNOME_TERMINAL_SCREEN=/org/gnome/Terminal/screen/" + tab,
		"KITTY_WINDOW_ID=" + tab, "WEZTERM_PANE=" + tab, "VSCODE_GIT_IPC_HANDLE=/run/vscode-" + tab + ".sock",
		"TMUX_PANE=%" + tab, "SSH_CONNECTION=10.0.0.1 " + tab + " 10.0.0.2 22", "TERM=xterm-" + tab,
	}
}

// startCall starts mcp call in the background and returns a function that
// waits for it.
func (m *muxEnv) startCall(extraEnv []string, args ...string) func() result {
	m.t.Helper()
	cmd := m.command(extraEnv, append([]string{"call"}, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	return func() result {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return result{out.String(), errb.String(), code}
	}
}

// Two terminal tabs share one warm multiplexer: a call from tab B neither
// stops tab A's multiplexer nor kills A's call in flight. The multiplexer
// used to be named by the whole environment, so B stopped A's and A's call
// ended with "multiplexer: EOF" (exit 4).
func TestTabsShareOneMultiplexer(t *testing.T) {
	m := newMuxEnv(t)
	m.mustIn(terminalVars("A"), "call", "fake.echo", "message=warm")
	sock := m.socketIn(terminalVars("A"), "")
	before := m.status(sock)
	wait := m.startCall(terminalVars("A"), "fake.sleep", "ms=1500")
	time.Sleep(300 * time.Millisecond)
	if out := m.mustIn(terminalVars("B"), "call", "fake.echo", "message=b"); strings.TrimSpace(out) != "b" {
		t.Errorf("tab B's call printed %q", out)
	}
	if r := wait(); r.code != 0 || strings.TrimSpace(r.stdout) != "slept" {
		t.Errorf("tab A's call in flight: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if sockB := m.socketIn(terminalVars("B"), ""); sockB != sock {
		t.Errorf("tab B's multiplexer is named %s, tab A's %s", sockB, sock)
	}
	after := m.status(sock)
	if after.PID != before.PID || after.Requests < before.Requests+2 {
		t.Errorf("tab A's multiplexer was replaced or skipped: pid %d then %d, requests %d then %d", before.PID, after.PID, before.Requests, after.Requests)
	}
}

// Two environments that really differ (a variable a ${VAR} of the recipe
// reads) get a multiplexer each, side by side: the second starts while
// the first serves a call, and stops nothing.
func TestDifferentEnvironmentsRunSideBySide(t *testing.T) {
	m := newMuxEnv(t)
	one, two := []string{"FAKE_STDOUT_LOGS=0"}, []string{"FAKE_STDOUT_LOGS=1"}
	m.mustIn(one, "call", "fake.echo", "message=warm")
	wait := m.startCall(one, "fake.sleep", "ms=1500")
	time.Sleep(300 * time.Millisecond)
	if out := m.mustIn(two, "call", "fake.echo", "message=two"); strings.TrimSpace(out) != "two" {
		t.Errorf("the second environment's call printed %q", out)
	}
	if r := wait(); r.code != 0 || strings.TrimSpace(r.stdout) != "slept" {
		t.Errorf("the first environment's call in flight: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	a, b := m.socketIn(one, ""), m.socketIn(two, "")
	if a == b || !mux.Running(a) || !mux.Running(b) {
		t.Errorf("want two multiplexers running side by side: %s (%v) and %s (%v)", a, mux.Running(a), b, mux.Running(b))
	}
	// daemon stop stops the recipe's multiplexers of every environment.
	if r := m.run(nil, "daemon", "stop"); r.code != 0 || !strings.Contains(r.stderr, "stopped 2 multiplexers") {
		t.Errorf("daemon stop: exit %d, stderr %q", r.code, r.stderr)
	}
	if mux.Running(a) || mux.Running(b) {
		t.Errorf("daemon stop left one running: %v %v", mux.Running(a), mux.Running(b))
	}
}

// mustIn runs mcp with extraEnv and fails the test unless it exits 0
// without a word on stderr.
func (m *muxEnv) mustIn(extraEnv []string, args ...string) string {
	m.t.Helper()
	r := m.run(extraEnv, args...)
	if r.code != 0 || r.stderr != "" {
		m.t.Fatalf("mcp %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}
