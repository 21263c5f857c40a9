//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/mux"
)

// muxEnv runs the mcp binary (this test binary, as testscript runs it) on
// a recipe whose server is fake-server, with a home and TMPDIR of its own,
// and can reach the multiplexers it starts.
type muxEnv struct {
	t      *testing.T
	root   string // the recipe
	tmp    string // its TMPDIR
	env    []string
	events string // FAKE_EVENTS of the fake server
}

const muxPackage = `{"name": "muxtest", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "fake", "tools": {"include": ["*"]}},
  {"id": "other", "tools": {"include": ["echo"]}}]}}}`

const muxManifest = `{"mcpServers": {
  "fake": {"command": "fake-server", "env": {"FAKE_EVENTS": "${FAKE_EVENTS}", "FAKE_GRANDCHILD": "${FAKE_GRANDCHILD:-0}", "FAKE_STDOUT_LOGS": "${FAKE_STDOUT_LOGS:-0}", "FAKE_IGNORE_EOF": "${FAKE_IGNORE_EOF:-0}"}},
  "other": {"command": "fake-server", "env": {"FAKE_EXIT_AT_START": "${FAKE_EXIT_AT_START:-0}"}}}}`

func newMuxEnv(t *testing.T) *muxEnv {
	t.Helper()
	t.Parallel()
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mcp", "fake-server"} {
		mkdir(t, bin)
		if err := os.Symlink(exe, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	home, tmp := filepath.Join(work, "home"), filepath.Join(work, "tmp")
	m := &muxEnv{t: t, root: filepath.Join(work, "recipe"), tmp: tmp, events: filepath.Join(work, "events")}
	mkdir(t, home)
	mkdir(t, tmp)
	writeFile(t, filepath.Join(m.root, "package.json"), muxPackage)
	writeFile(t, filepath.Join(m.root, "mcp.json"), muxManifest)
	writeFile(t, filepath.Join(m.root, "agents", "narrow.yaml"), "mcp:\n  servers:\n    fake:\n      include: [echo]\n")
	writeFile(t, filepath.Join(m.root, "agents", "sleeper.yaml"), "mcp:\n  servers:\n    fake:\n      include: [sleep, getenv]\n")
	m.env = []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "TMPDIR=" + tmp, "XDG_RUNTIME_DIR=",
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"FAKE_EVENTS=" + m.events,
	}
	t.Cleanup(func() { stopDaemons(t, tmp) })
	m.trust()
	return m
}

// trust trusts the recipe as it is now, as a person who has read it would.
func (m *muxEnv) trust() {
	m.t.Helper()
	m.must("trust")
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	mkdir(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

type result struct {
	stdout, stderr string
	code           int
}

func (m *muxEnv) command(extraEnv []string, args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = "mcp"
	cmd.Dir = m.root
	cmd.Env = append(append([]string{}, m.env...), extraEnv...)
	return cmd
}

// run runs mcp with args in the recipe and returns what it printed and its
// exit code.
func (m *muxEnv) run(extraEnv []string, args ...string) result {
	m.t.Helper()
	return runProcess(m.t, m.command(extraEnv, args...))
}

// runProcess runs cmd and returns what it printed and its exit code; a
// command that could not be run fails the test.
func runProcess(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return result{out.String(), errb.String(), code}
}

// must runs mcp and fails the test unless it exits 0 without a warning.
func (m *muxEnv) must(args ...string) string {
	m.t.Helper()
	r := m.run(nil, args...)
	if r.code != 0 || r.stderr != "" {
		m.t.Fatalf("mcp %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// expect runs mcp and checks its exit code and that stderr holds want.
func (m *muxEnv) expect(code int, want string, args ...string) result {
	m.t.Helper()
	r := m.run(nil, args...)
	if r.code != code || !strings.Contains(r.stderr, want) {
		m.t.Fatalf("mcp %v: exit %d, want %d; stderr should hold %q\nstdout: %s\nstderr: %s", args, r.code, code, want, r.stdout, r.stderr)
	}
	return r
}

// socket is where the multiplexer outside a session for agent listens.
func (m *muxEnv) socket(agent string) string {
	return m.socketIn(nil, agent)
}

// socketIn is where the multiplexer outside a session for agent listens
// for an invocation with extraEnv beside the test's environment.
func (m *muxEnv) socketIn(extraEnv []string, agent string) string {
	env := append(append([]string{}, m.env...), extraEnv...)
	return m.socketOf(mux.Target{Root: m.root, Agent: agent}.IdentifiedIn(env).SocketKey())
}

// sessionSocket is where the multiplexer of a session listens, from the
// MCP_SESSION value session start printed.
func (m *muxEnv) sessionSocket(env string) string {
	_, socket := sessionParts(m.t, env)
	return socket
}

// sessionParts splits an MCP_SESSION value into the session's id and its
// socket.
func sessionParts(t *testing.T, env string) (id, socket string) {
	t.Helper()
	id, _, socket, err := session.ParseEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	return id, socket
}

// sessionEnv is the MCP_SESSION value of session id, which this user
// started, on socket.
func sessionEnv(id, socket string) string { return session.FormatEnv(id, os.Getuid(), socket) }

// socketOf is where the multiplexer named key listens, as mcp in m's
// environment finds it.
func (m *muxEnv) socketOf(key string) string {
	m.t.Helper()
	cmd := m.command(nil, key)
	cmd.Args[0] = "socket-path"
	r := runProcess(m.t, cmd)
	if r.code != 0 {
		m.t.Fatalf("the socket of multiplexer %s: %s", key, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

func (m *muxEnv) status(socket string) *mux.Status {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mux.Dial(ctx, socket)
	if err != nil {
		m.t.Fatalf("dialing the multiplexer: %v", err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		m.t.Fatalf("multiplexer status: %v", err)
	}
	return st
}

// serverPID is the pid of the multiplexer's stdio server id.
func (m *muxEnv) serverPID(socket, id string) int {
	m.t.Helper()
	for _, s := range m.status(socket).Servers {
		if s.ID == id && s.Connected {
			return s.PID
		}
	}
	m.t.Fatalf("server %s is not connected in the multiplexer", id)
	return 0
}

// eventually polls cond for up to d.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// gone says whether no process pid exists, not even a zombie.
func gone(pid int) bool {
	return syscall.Kill(pid, 0) != nil
}

func (m *muxEnv) eventLines(prefix string) []string {
	data, _ := os.ReadFile(m.events)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l == prefix {
			out = append(out, "")
		} else if v, ok := strings.CutPrefix(l, prefix+" "); ok {
			out = append(out, v)
		}
	}
	return out
}

// startSession starts a session for agent ("" for the package boundary)
// and returns its id.
func (m *muxEnv) startSession(agent string, env ...string) string {
	m.t.Helper()
	args := []string{"session", "start"}
	if agent != "" {
		args = append(args, "--agent", agent)
	}
	r := m.run(env, args...)
	id, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		m.t.Fatalf("mcp %v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
	}
	return id
}
