//go:build windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/testenv/tempdir"
)

// On Windows the directory testscript.Main keeps its commands in (the
// first in PATH) is removed a name at a time once the tests ran: Wine has
// no FileDispositionInformationEx, which os.RemoveAll uses, and
// testscript.Main fails when its RemoveAll does.
func init() {
	scriptsMain = func(m *testing.M) testscript.TestingM { return removeBinDir{m} }
}

type removeBinDir struct{ m *testing.M }

func (r removeBinDir) Run() int {
	code := r.m.Run()
	bin := filepath.SplitList(os.Getenv("PATH"))[0]
	if dir := filepath.Dir(bin); filepath.Base(bin) == "bin" && strings.HasPrefix(filepath.Base(dir), "testscript-main") {
		for _, err := range tempdir.Remove(dir) {
			fmt.Fprintln(os.Stderr, "cleanup:", err)
			code = 1
		}
	}
	return code
}

// TestWindowsScripts runs testdata/windows on Windows (and under Wine):
// the multiplexer, sessions and their lines as Windows has them, with
// the example's contacts server.
func TestWindowsScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "windows"),
		WorkdirRoot:         tempdir.New(t, "scripts"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			for k, v := range map[string]string{
				"USERPROFILE": home, "HOME": home,
				"APPDATA":      filepath.Join(home, "AppData", "Roaming"),
				"LOCALAPPDATA": filepath.Join(home, "AppData", "Local"),
				"TEMP":         filepath.Join(env.WorkDir, ".tmp"), "TMP": filepath.Join(env.WorkDir, ".tmp"),
			} {
				env.Setenv(k, v)
			}
			env.Defer(func() { stopWindowsDaemons(t, filepath.Join(env.WorkDir, ".tmp")) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"session-env-cmd": sessionEnvCmdLine,
		},
	})
}

// stopWindowsDaemons ends the multiplexers whose sockets are in the
// runtime directories mcp made in tmp (mcp-NUMBER: Windows has no uid to
// name them by), and fails the test if one does not stop.
func stopWindowsDaemons(t *testing.T, tmp string) {
	locks, _ := filepath.Glob(filepath.Join(tmp, "mcp-*", "*.sock.lock"))
	shutdownAll(t, locks)
}

// sessionEnvCmdLine reads cmd's `set "MCP_SESSION=ID"` from a file (the
// stdout of `mcp session start --shell cmd`) and sets it for the rest of
// the script, or with "off" unsets it.
func sessionEnvCmdLine(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: session-env-cmd FILE|off")
	}
	if args[0] == "off" {
		ts.Setenv("MCP_SESSION", unsetSession)
		return
	}
	line := strings.TrimSpace(ts.ReadFile(args[0]))
	id, ok := strings.CutPrefix(line, `set "MCP_SESSION=`)
	id, closed := strings.CutSuffix(id, `"`)
	if !ok || !closed || id == "" {
		ts.Fatalf("no set line in %s: %q", args[0], line)
	}
	ts.Setenv("MCP_SESSION", id)
	ts.Setenv("MCP_SESSION_ID", id[:strings.IndexByte(id, ':')])
}

// On Windows session start refuses --user with one error line, its hint
// and exit 2, before it reads the recipe, starts a multiplexer or saves a
// session's state, whether or not the user exists.
func TestWindowsGuestRefused(t *testing.T) {
	home := tempdir.New(t, "guest")
	for k, v := range map[string]string{
		"USERPROFILE": home, "HOME": home,
		"APPDATA":      filepath.Join(home, "AppData", "Roaming"),
		"LOCALAPPDATA": filepath.Join(home, "AppData", "Local"),
		"TEMP":         filepath.Join(home, "Temp"), "TMP": filepath.Join(home, "Temp"),
		"MCP_SESSION": "",
	} {
		t.Setenv(k, v)
	}
	os.Unsetenv("MCP_SESSION")
	t.Chdir(home)                          // no recipe here: one would be read only after the refusal
	users := []string{"Guest", "S-1-5-18"} // no such user; SYSTEM's SID
	if me := os.Getenv("USERNAME"); me != "" {
		users = append(users, me)
	}
	for _, user := range users {
		var stdout, stderr strings.Builder
		code := Main([]string{"session", "start", "--user", user}, strings.NewReader(""), &stdout, &stderr)
		want := fmt.Sprintf("mcp: error: --user %q: sharing a session with another user needs Linux, macOS or FreeBSD, where the multiplexer can tell who connects\n"+
			"mcp: hint: run `mcp session start` as that user instead, so the session is its own, or run the agent as you without --user\n", user)
		if code != exit.Usage || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("--user %q: exit %d, stdout %q, stderr:\n%s\nwant exit %d, no stdout, stderr:\n%s", user, code, stdout.String(), stderr.String(), exit.Usage, want)
		}
	}
	if list, err := session.List(); err != nil || len(list) != 0 {
		t.Errorf("sessions after the refusals: %v, %v", list, err)
	}
	if locks, _ := filepath.Glob(filepath.Join(home, "Temp", "mcp-*", "*.sock.lock")); len(locks) != 0 {
		t.Errorf("a multiplexer started: %v", locks)
	}
}
