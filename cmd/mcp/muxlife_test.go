//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/mux"
)

// Outside a session, an edited agent file reloads the running
// multiplexer: the new surface applies at once, with no restart.
func TestMuxReloadsOnHost(t *testing.T) {
	m := newMuxEnv(t)
	m.must("--agent", "narrow", "call", "fake.echo", "message=hi")
	m.expect(exit.NotAvailable, "fake.getenv is not available", "--agent", "narrow", "call", "fake.getenv", "name=HOME")
	sock := m.socket("narrow")
	before := m.status(sock)
	server := m.serverPID(sock, "fake")

	writeFile(t, filepath.Join(m.root, "agents", "narrow.yaml"), "mcp:\n  servers:\n    fake:\n      include: [echo, getenv]\n")
	if !eventually(10*time.Second, func() bool { return m.status(sock).Reloads > before.Reloads }) {
		t.Fatal("the multiplexer did not reload after the agent file changed")
	}
	r := m.run(nil, "--agent", "narrow", "call", "fake.getenv", "name=FAKE_EVENTS")
	if r.code != 0 || strings.TrimSpace(r.stdout) != m.events {
		t.Fatalf("after the reload: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if after := m.status(sock); after.PID != before.PID {
		t.Errorf("the multiplexer was restarted (%d, was %d) instead of reloaded", after.PID, before.PID)
	}
	if got := m.serverPID(sock, "fake"); got != server {
		t.Errorf("a surface change restarted the server (%d, was %d); its endpoint did not change", got, server)
	}

	// A configuration broken by an edit answers with the error, and the
	// fix is picked up.
	good, _ := os.ReadFile(filepath.Join(m.root, "mcp.json"))
	writeFile(t, filepath.Join(m.root, "mcp.json"), "{ not json")
	if !eventually(10*time.Second, func() bool {
		return m.run(nil, "--agent", "narrow", "call", "fake.echo", "message=x").code == exit.Config
	}) {
		t.Fatal("a broken manifest was not reported")
	}
	writeFile(t, filepath.Join(m.root, "mcp.json"), string(good))
	if !eventually(10*time.Second, func() bool {
		return m.run(nil, "--agent", "narrow", "call", "fake.echo", "message=x").code == 0
	}) {
		t.Fatal("the fixed manifest was not picked up")
	}
}

// Inside a session the surface stays as it was at start, but a rotated
// credential in the local binding reaches the server once the host has
// trusted the changed binding.
func TestMuxReloadsInSession(t *testing.T) {
	m := newMuxEnv(t)
	binding := func(token string) {
		writeFile(t, filepath.Join(m.root, ".pi", "mcp.local.json"),
			`{"mcpServers": {"fake": {"command": "fake-server", "env": {"FAKE_TOKEN": "`+token+`"}}}}`)
	}
	binding("first")
	m.trust()
	r := m.run(nil, "session", "start", "--agent", "sleeper")
	id, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	in := []string{"MCP_SESSION=" + id}
	sock := m.sessionSocket(id)
	token := func() string {
		r := m.run(in, "call", "fake.getenv", "name=FAKE_TOKEN")
		if r.code != 0 {
			t.Fatalf("getenv in the session: exit %d, %q", r.code, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	if got := token(); got != "first" {
		t.Fatalf("token %q, want first", got)
	}
	before := m.status(sock).Reloads
	binding("second")
	writeFile(t, filepath.Join(m.root, "agents", "sleeper.yaml"), "mcp:\n  servers:\n    fake:\n      include: [\"*\"]\n")
	if !eventually(10*time.Second, func() bool { return m.status(sock).Reloads > before }) {
		t.Fatal("the session's multiplexer did not reload")
	}
	m.trust()
	if got := token(); got != "second" {
		t.Errorf("after rotating the credential the server sees %q, want second", got)
	}
	if r := m.run(in, "call", "fake.echo", "message=hi"); r.code != exit.NotAvailable {
		t.Errorf("an agent file edited during the session widened it: exit %d, %q", r.code, r.stdout)
	}
	m.run(nil, "session", "stop", id)
}

// A multiplexer outside a session exits after its idle time; an upstream
// connection unused for its idle time is closed and comes back on use.
func TestMuxIdle(t *testing.T) {
	m := newMuxEnv(t)
	m.env = append(m.env, "MCP_UPSTREAM_IDLE=300ms", "MCP_MUX_IDLE=1h")
	m.must("call", "fake.echo", "message=hi")
	sock := m.socket("")
	if !eventually(10*time.Second, func() bool { return len(m.status(sock).Servers) == 0 }) {
		t.Fatalf("the idle upstream connection was not closed: %+v", m.status(sock).Servers)
	}
	m.must("call", "fake.echo", "message=again")

	long := sock
	m.env = append(m.env, "MCP_MUX_IDLE=500ms")
	m.must("call", "fake.echo", "message=hi") // another idle time: another multiplexer, beside the first
	sock = m.socket("")
	if sock == long || !mux.Running(long) {
		t.Fatalf("the multiplexer of MCP_MUX_IDLE=500ms is %s, the first %s (running: %v)", sock, long, mux.Running(long))
	}
	if !mux.WaitGone(sock, 10*time.Second) {
		t.Fatal("the idle multiplexer did not exit")
	}
	if !mux.Running(long) {
		t.Error("the multiplexer of MCP_MUX_IDLE=1h exited with the other")
	}
	for _, f := range []string{sock, sock + ".lock", sock + ".log"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("the idle multiplexer left %s: %v", filepath.Base(f), err)
		}
	}
}

// A session's multiplexer lives as long as the session, but its servers
// close when unused, as they do outside sessions, and come back on use.
func TestSessionServersCloseWhenIdle(t *testing.T) {
	m := newMuxEnv(t)
	env := m.startSession("", "MCP_UPSTREAM_IDLE=300ms")
	defer m.run(nil, "session", "stop", env)
	in := []string{"MCP_SESSION=" + env}
	if r := m.run(in, "call", "fake.echo", "message=hi"); r.code != 0 {
		t.Fatalf("call: exit %d, %q", r.code, r.stderr)
	}
	sock := m.sessionSocket(env)
	if !eventually(10*time.Second, func() bool { return len(m.status(sock).Servers) == 0 }) {
		t.Fatalf("the session's idle server was not closed: %+v", m.status(sock).Servers)
	}
	if r := m.run(in, "call", "fake.echo", "message=again"); r.code != 0 || r.stdout != "again\n" {
		t.Errorf("call after the server closed: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}

// What a multiplexer that died leaves (a lock no one holds, its log, no
// socket) is swept when mcp next looks at the multiplexers; a running
// multiplexer's files and a dead one's that are too fresh to be sure of
// stay.
func TestMuxSweepsWhatTheDeadLeft(t *testing.T) {
	m := newMuxEnv(t)
	m.must("call", "fake.echo", "message=hi")
	live := m.socket("")
	dir := filepath.Dir(live)
	dead, fresh := filepath.Join(dir, "0123456789abcdef0123.sock"), filepath.Join(dir, "fedcba9876543210fedc.sock")
	old := time.Now().Add(-time.Hour)
	for _, base := range []string{dead, fresh} {
		for _, f := range []string{base + ".lock", base + ".log"} {
			writeFile(t, f, "4242\n")
			if base == dead {
				if err := os.Chtimes(f, old, old); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	m.must("daemon", "status")
	for _, f := range []string{dead + ".lock", dead + ".log"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s of a dead multiplexer is left: %v", filepath.Base(f), err)
		}
	}
	for _, f := range []string{fresh + ".lock", fresh + ".log", live, live + ".lock", live + ".log"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was swept: %v", filepath.Base(f), err)
		}
	}
}

// A server that changes its tools says so; the multiplexer lists them
// again, so list and the catalog cache see the new tool at once.
func TestMuxToolsListChanged(t *testing.T) {
	m := newMuxEnv(t)
	if out := m.must("list", "fake"); strings.Contains(out, "added_at_runtime") {
		t.Fatalf("the tool exists before it was added:\n%s", out)
	}
	m.must("call", "fake.add_tool")
	if !eventually(10*time.Second, func() bool { return strings.Contains(m.must("list", "fake"), "added_at_runtime") }) {
		t.Fatal("the new tool never appeared in list")
	}
	if out := m.must("call", "fake.added_at_runtime"); out != "added at runtime\n" {
		t.Errorf("calling the new tool printed %q", out)
	}
	cache, _ := filepath.Glob(filepath.Join(m.envValue("XDG_CACHE_HOME"), "mcp", "catalog", "*"))
	found := false
	for _, f := range cache {
		if data, _ := os.ReadFile(f); bytes.Contains(data, []byte("added_at_runtime")) {
			found = true
		}
	}
	if !found {
		t.Errorf("the catalog cache (%d files) does not hold the new tool", len(cache))
	}
}

func (m *muxEnv) envValue(name string) string {
	for i := len(m.env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(m.env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// Where no multiplexer can start, mcp says so in one line and connects
// directly.
func TestMuxFallsBackToDirect(t *testing.T) {
	m := newMuxEnv(t)
	// No private directory to remember the runtime directory in.
	dir := filepath.Join(m.envValue("XDG_CACHE_HOME"), "mcp", "runtime")
	mkdir(t, dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r := m.run(nil, "call", "fake.echo", "message=direct")
	if r.code != 0 || r.stdout != "direct\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcp: warning: the multiplexer is unavailable (") || !strings.HasSuffix(lines[0], "; connecting directly") {
		t.Errorf("stderr should be one warning line, got %q", r.stderr)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// A cold connect that takes longer than progressDelay is shown on a
// terminal, and the line is cleared once the server is up; a fast one
// prints nothing.
func TestConnectingProgress(t *testing.T) {
	var buf testenv.SyncBuffer
	a := &app{stderr: &buf, errOut: &buf}
	read := buf.String
	done := a.connecting("slow")
	if !eventually(10*time.Second, func() bool { return read() != "" }) {
		t.Fatal("a slow connect printed nothing")
	}
	done()
	if got := read(); got != "\r\x1b[Kmcp: starting slow…\r\x1b[K" {
		t.Errorf("slow connect printed %q", got)
	}
	buf.Reset()
	a.connecting("fast")()
	time.Sleep(progressDelay + 100*time.Millisecond)
	if got := read(); got != "" {
		t.Errorf("fast connect printed %q", got)
	}
	// Two servers that start together share the line, one at a time.
	buf.Reset()
	first := a.connecting("first")
	if !eventually(10*time.Second, func() bool { return read() != "" }) {
		t.Fatal("a slow connect printed nothing")
	}
	second := a.connecting("second")
	if !eventually(10*time.Second, func() bool { return strings.Contains(read(), "second") }) {
		t.Fatal("the second slow connect printed nothing")
	}
	first()
	second()
	if got, want := read(), "\r\x1b[Kmcp: starting first…\r\x1b[Kmcp: starting second…\r\x1b[K"; got != want {
		t.Errorf("two slow connects printed %q, want %q", got, want)
	}
	// Never with --json, NO_COLOR or a stderr that is not a terminal.
	a.globals = &Globals{}
	if a.progress() {
		t.Error("progress shown on a stderr that is not a terminal")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestIsGoRunPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build2674839/b001/exe/mcp":         true,
		"/home/u/.cache/tmp/go-build1/b001/exe/mcp": true,
		"/usr/local/bin/mcp":                        false,
		"/home/u/go/bin/mcp":                        false,
		"/tmp/exe/mcp":                              false,
	} {
		if got := mux.IsGoRunPath(path); got != want {
			t.Errorf("mux.IsGoRunPath(%q) = %v, want %v", path, got, want)
		}
	}
}

// mcp daemon status shows what runs; stop ends the recipe's multiplexer,
// and --all every one outside a session.
func TestMuxDaemonCommand(t *testing.T) {
	m := newMuxEnv(t)
	if r := m.run(nil, "daemon", "status"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no multiplexer is running") {
		t.Fatalf("status with none: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	m.must("call", "fake.echo", "message=hi")
	m.must("--agent", "narrow", "call", "fake.echo", "message=hi")
	r := m.run(nil, "session", "start", "--agent", "sleeper")
	env, _ := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	id, _ := sessionParts(t, env)
	out := m.must("daemon", "status")
	for _, want := range []string{"recipe " + m.root + "  (", "recipe " + m.root + ", agent narrow", "session " + id, "  fake  connected, "} {
		if !strings.Contains(out, want) {
			t.Errorf("status should hold %q:\n%s", want, out)
		}
	}
	// The narrow agent may call one tool of the fake server's several.
	if narrow := regexp.MustCompile(`, agent narrow  \(.*\)\n  fake  connected, 1 of ([2-9]|\d\d+) tools authorized, pid \d+`); !narrow.MatchString(out) {
		t.Errorf("status should count the narrow agent's 1 authorized tool of the fake server's:\n%s", out)
	}
	if r := m.run(nil, "daemon", "stop"); r.code != 0 || !strings.Contains(r.stderr, "stopped 1 multiplexer") {
		t.Fatalf("stop: exit %d, %q", r.code, r.stderr)
	}
	if mux.Running(m.socket("")) || !mux.Running(m.socket("narrow")) {
		t.Error("stop should end the boundary's multiplexer and only it")
	}
	if r := m.run(nil, "daemon", "stop", "--all"); r.code != 0 || !strings.Contains(r.stderr, "stopped 1 multiplexer") {
		t.Fatalf("stop --all: exit %d, %q", r.code, r.stderr)
	}
	sock := m.sessionSocket(env)
	if !mux.Running(sock) {
		t.Error("stop --all ended a session's multiplexer")
	}
	if r := m.run([]string{"MCP_SESSION=" + env}, "daemon", "status"); r.code != exit.Usage {
		t.Errorf("daemon in a session: exit %d, want %d", r.code, exit.Usage)
	}
	m.run(nil, "session", "stop", id)
}

// A warm mcp call and a warm mcp search are one request each to the
// multiplexer: no greeting, no separate look-up of the tool, no request
// per server for the catalog. (The status request that reads the count is
// one more.)
func TestMuxOneExchangePerVerb(t *testing.T) {
	m := newMuxEnv(t)
	m.must("--agent", "narrow", "call", "fake.echo", "message=hi")
	m.must("--agent", "narrow", "search", "echo")
	sock := m.socket("narrow")
	for _, args := range [][]string{
		{"--agent", "narrow", "call", "fake.echo", "message=hi"},
		{"--agent", "narrow", "search", "echo"},
		{"--agent", "narrow", "list"},
	} {
		before := m.status(sock).Requests
		m.must(args...)
		if got := m.status(sock).Requests - before; got != 2 {
			t.Errorf("mcp %s: %d requests to the multiplexer, want 1", strings.Join(args, " "), got-1)
		}
	}
}
