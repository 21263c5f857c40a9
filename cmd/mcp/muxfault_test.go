//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux"
)

// The multiplexer keeps one upstream connection warm across invocations.
func TestMuxKeepsServersWarm(t *testing.T) {
	m := newMuxEnv(t)
	if out := m.must("call", "fake.echo", "message=one"); out != "one\n" {
		t.Fatalf("first call printed %q", out)
	}
	sock := m.socket("")
	pid := m.serverPID(sock, "fake")
	daemon := m.status(sock).PID
	m.must("call", "fake.echo", "message=two")
	if got := m.serverPID(sock, "fake"); got != pid {
		t.Errorf("the second call reached server process %d, the first %d: not kept warm", got, pid)
	}
	if got := m.status(sock).PID; got != daemon {
		t.Errorf("the second call started multiplexer %d, the first %d", got, daemon)
	}
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(filepath.Dir(sock)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode: %v, %v; want 0700", st.Mode().Perm(), err)
	}
}

// Each upstream fault gives one clear error and exit 4 (upstream
// unavailable), and the next call through the same multiplexer works.
func TestMuxUpstreamFaults(t *testing.T) {
	m := newMuxEnv(t)
	m.must("call", "fake.echo", "message=warm")
	sock := m.socket("")
	daemon := m.status(sock).PID
	next := func(step string) {
		t.Helper()
		if out := m.must("call", "fake.echo", "message=after"); out != "after\n" {
			t.Fatalf("after %s the next call printed %q", step, out)
		}
		if got := m.status(sock).PID; got != daemon {
			t.Fatalf("after %s the multiplexer was replaced (%d, was %d)", step, got, daemon)
		}
	}

	// The server crashes in the middle of a call: its stderr is shown.
	r := m.expect(exit.Upstream, "mcp: error: server fake is unavailable", "call", "fake.crash")
	if !strings.Contains(r.stderr, "fake: crashing on purpose") {
		t.Errorf("the crashed server's stderr is not shown:\n%s", r.stderr)
	}
	next("a crash mid-call")

	// A hung tool hits --timeout; the request is cancelled upstream.
	start := time.Now()
	r = m.expect(exit.Upstream, "mcp: error: timed out after 500ms: server fake did not answer in time", "call", "fake.sleep", "ms=30000", "--timeout", "500ms")
	if !strings.Contains(r.stderr, "raise --timeout") {
		t.Errorf("a timeout has no hint:\n%s", r.stderr)
	}
	// Not a speed check: a call the timeout did not end would wait the
	// 30 s the tool sleeps.
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("a 500ms timeout took %v: the call was not ended", d)
	}
	if !eventually(5*time.Second, func() bool { return len(m.eventLines("cancelled")) > 0 }) {
		log, _ := os.ReadFile(sock + ".log")
		ev, _ := os.ReadFile(m.events)
		t.Errorf("the server never saw the request cancelled\nlog:\n%s\nevents:\n%s", log, ev)
	}
	next("a timeout")

	// A 10 MB result arrives whole (--json is never cut).
	out := m.must("call", "fake.big", "bytes=10000000", "--json")
	if len(out) < 10_000_000 {
		t.Errorf("a 10 MB result printed %d bytes", len(out))
	}
	next("a 10 MB result")
}

// A server that writes logs to stdout before it speaks, and one that exits
// at start (its stderr is shown).
func TestMuxServerStartFaults(t *testing.T) {
	m := newMuxEnv(t)
	r := m.run([]string{"FAKE_STDOUT_LOGS=1"}, "call", "fake.echo", "message=hi")
	if r.code != 0 || r.stdout != "hi\n" {
		t.Errorf("a server with logs on stdout: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = m.run([]string{"FAKE_EXIT_AT_START=1"}, "call", "other.echo", "message=hi")
	if r.code != exit.Upstream || !strings.Contains(r.stderr, "fake: cannot open database: permission denied") {
		t.Errorf("a server that exits at start: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := m.run(nil, "call", "other.echo", "message=again"); r.code != 0 || r.stdout != "again\n" {
		t.Errorf("after a failed start: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A multiplexer killed with SIGKILL between calls is replaced by the next
// call, and its server does not outlive it, even a server that ignores the
// end of its stdin.
func TestMuxKilled(t *testing.T) {
	m := newMuxEnv(t)
	m.env = append(m.env, "FAKE_IGNORE_EOF=1")
	m.must("call", "fake.echo", "message=one")
	sock := m.socket("")
	old := m.status(sock)
	server := m.serverPID(sock, "fake")
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !mux.WaitGone(sock, 5*time.Second) {
		t.Fatal("the killed multiplexer still holds its lock")
	}
	if out := m.must("call", "fake.echo", "message=two"); out != "two\n" {
		t.Fatalf("after the kill the call printed %q", out)
	}
	if now := m.status(sock).PID; now == old.PID {
		t.Errorf("the same multiplexer %d answered after SIGKILL", now)
	}
	if !eventually(10*time.Second, func() bool { return gone(server) }) {
		t.Errorf("server %d outlived its killed multiplexer", server)
	}
}

// 100 concurrent mcp processes share one multiplexer and one upstream
// connection, and every one gets its own answer.
func TestMuxConcurrentCalls(t *testing.T) {
	m := newMuxEnv(t)
	m.must("call", "fake.echo", "message=warm")
	sock := m.socket("")
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := fmt.Sprintf("call-%d", i)
			r := m.run(nil, "call", "fake.echo", "message="+want)
			if r.code != 0 || r.stdout != want+"\n" || r.stderr != "" {
				errs <- fmt.Sprintf("call %d: exit %d, stdout %q, stderr %q", i, r.code, r.stdout, r.stderr)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	st := m.status(sock)
	if len(st.Servers) != 1 {
		t.Errorf("%d upstream connections after 100 calls to one server, want 1: %+v", len(st.Servers), st.Servers)
	}
	if pids := m.eventLines("pid"); len(pids) != 1 {
		t.Errorf("the server was started %d times, want once", len(pids))
	}
}

// Two sessions with different surfaces have a multiplexer each, and
// neither sees the other's tools; after session stop nothing is left:
// not the multiplexer, not its server, not the server's own child.
func TestMuxSessions(t *testing.T) {
	m := newMuxEnv(t)
	startSession := func(agent string, env ...string) string {
		t.Helper()
		r := m.run(env, "session", "start", "--agent", agent)
		id, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
		if r.code != 0 || !ok {
			t.Fatalf("session start --agent %s: exit %d, stdout %q, stderr %q", agent, r.code, r.stdout, r.stderr)
		}
		return id
	}
	narrow := startSession("narrow", "FAKE_GRANDCHILD=1")
	sleeper := startSession("sleeper")
	in := func(id string) []string { return []string{"MCP_SESSION=" + id} }

	if r := m.run(in(narrow), "call", "fake.echo", "message=hi"); r.code != 0 || r.stdout != "hi\n" {
		t.Fatalf("narrow: echo: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if r := m.run(in(narrow), "call", "fake.getenv", "name=HOME"); r.code != exit.NotAvailable {
		t.Errorf("narrow reached sleeper's fake.getenv: exit %d, %q", r.code, r.stderr)
	}
	if r := m.run(in(sleeper), "call", "fake.echo", "message=hi"); r.code != exit.NotAvailable {
		t.Errorf("sleeper reached narrow's fake.echo: exit %d, %q", r.code, r.stderr)
	}
	if r := m.run(in(sleeper), "list", "fake"); r.code != 0 || strings.Contains(r.stdout, "echo") || !strings.Contains(r.stdout, "getenv") {
		t.Errorf("sleeper's list: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}

	sock := m.sessionSocket(narrow)
	other := m.sessionSocket(sleeper)
	st := m.status(sock)
	if st.PID == m.status(other).PID {
		t.Fatal("two sessions share one multiplexer")
	}
	server := m.serverPID(sock, "fake")
	grandchildren := m.eventLines("grandchild")
	if len(grandchildren) == 0 {
		t.Fatal("the server did not start its child")
	}
	if r := m.run(nil, "session", "stop", narrow); r.code != 0 {
		t.Fatalf("session stop: exit %d, %q", r.code, r.stderr)
	}
	if mux.Running(sock) {
		t.Error("the multiplexer still runs after session stop returned")
	}
	pids := []int{st.PID, server}
	for _, g := range grandchildren {
		pid, _ := strconv.Atoi(g)
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		if !eventually(5*time.Second, func() bool { return gone(pid) }) {
			t.Errorf("process %d is left after session stop", pid)
		}
	}
	// The other session is untouched.
	if r := m.run(in(sleeper), "call", "fake.getenv", "name=FAKE_EVENTS"); r.code != 0 {
		t.Errorf("the other session after a stop: exit %d, %q", r.code, r.stderr)
	}
	if r := m.run(in(narrow), "list"); r.code != exit.Upstream || !strings.Contains(r.stderr, "has no multiplexer running") {
		t.Errorf("a stopped session: exit %d, want %d (%q)", r.code, exit.Upstream, r.stderr)
	}
	if r := m.run(nil, "session", "stop", sleeper); r.code != 0 {
		t.Errorf("session stop: exit %d, %q", r.code, r.stderr)
	}
}

// A multiplexer holds nothing the invocation that started it inherited: a
// parent waiting for a pipe to close is not kept waiting by it.
func TestMuxInheritsNoDescriptors(t *testing.T) {
	m := newMuxEnv(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := m.command(nil, "call", "fake.echo", "message=hi")
	cmd.ExtraFiles = []*os.File{w} // fd 3 of mcp, without close-on-exec
	if out, err := cmd.Output(); err != nil || string(out) != "hi\n" {
		t.Fatalf("call: %v, %q", err, out)
	}
	w.Close()
	if !mux.Running(m.socket("")) {
		t.Fatal("no multiplexer was started")
	}
	done := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := r.Read(b[:])
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("read data from a pipe nobody wrote to")
		}
	case <-time.After(5 * time.Second):
		t.Error("the pipe mcp inherited is still open in the multiplexer")
	}
}

// A session's state is checked whenever it is loaded: a state file edited
// to widen the surface is refused (the session serves what it started
// with, or nothing), and one that others may read is refused.
func TestSessionStateCannotWiden(t *testing.T) {
	m := newMuxEnv(t)
	env := m.startSession("")
	defer m.run(nil, "session", "stop", env)
	in := []string{"MCP_SESSION=" + env}
	sock := m.sessionSocket(env)
	id, _ := sessionParts(t, env)
	state := filepath.Join(m.envValue("XDG_CACHE_HOME"), "mcp", "sessions", id+".json")
	writeFile(t, state, fmt.Sprintf(`{"id": %q, "root": %q, "started": "2026-01-01T00:00:00Z",
  "surface": {"mode": "cli", "servers": [{"id": "other", "all": true}]}}`, id, m.root))
	reload := func() {
		t.Helper()
		before := m.status(sock).Reloads
		writeFile(t, filepath.Join(m.root, "mcp.json"), muxManifest)
		if !eventually(10*time.Second, func() bool { return m.status(sock).Reloads > before }) {
			t.Fatal("the session's multiplexer did not reload")
		}
	}
	reload()
	for _, args := range [][]string{{"other.getenv", "name=HOME"}, {"other.echo", "message=hi"}, {"fake.echo", "message=hi"}} {
		if r := m.run(in, append([]string{"call"}, args...)...); r.code != exit.Config || !strings.Contains(r.stderr, "its state file changed since it started") {
			t.Errorf("call %v after the state was widened: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if err := os.Chmod(state, 0o644); err != nil {
		t.Fatal(err)
	}
	reload()
	if r := m.run(in, "list"); r.code == 0 || !strings.Contains(r.stderr, "not private") {
		t.Errorf("a state file others may read: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Nothing the agent's shell sets moves a session: MCP_NO_MUX does not make
// it connect directly with the agent's own ${VAR}s, and another
// XDG_RUNTIME_DIR or TMPDIR does not start a multiplexer from the agent's
// environment; the session's calls go to its own multiplexer, the one
// MCP_SESSION names.
func TestSessionIgnoresAgentEnvironment(t *testing.T) {
	m := newMuxEnv(t)
	id := m.startSession("")
	defer m.run(nil, "session", "stop", id)
	in := []string{"MCP_SESSION=" + id}
	agent := append(slices.Clone(in), "MCP_NO_MUX=1", "FAKE_EVENTS=/agent/chose/this")
	if r := m.run(agent, "call", "fake.getenv", "name=FAKE_EVENTS"); r.code != 0 || strings.TrimSpace(r.stdout) != m.events {
		t.Errorf("MCP_NO_MUX with the agent's FAKE_EVENTS: exit %d, stdout %q (want %s), stderr %q", r.code, r.stdout, m.events, r.stderr)
	}
	before := m.status(m.sessionSocket(id)).Requests
	moved := append(slices.Clone(in), "XDG_RUNTIME_DIR="+t.TempDir(), "TMPDIR="+t.TempDir(), "FAKE_EVENTS=/agent/chose/this")
	if r := m.run(moved, "call", "fake.getenv", "name=FAKE_EVENTS"); r.code != 0 || strings.TrimSpace(r.stdout) != m.events {
		t.Errorf("another XDG_RUNTIME_DIR and TMPDIR: exit %d, stdout %q (want %s), stderr %q", r.code, r.stdout, m.events, r.stderr)
	}
	if after := m.status(m.sessionSocket(id)).Requests; after <= before {
		t.Errorf("the call did not go to the session's multiplexer (%d requests before, %d after)", before, after)
	}
}

// MCP_SESSION names the session's multiplexer, and every request names the
// session: pointed at the host's own multiplexer (which serves the whole
// package) or at another session's, the CLI is refused there and tries
// nothing else.
func TestSessionEnvNamesItsMultiplexer(t *testing.T) {
	m := newMuxEnv(t)
	m.must("call", "fake.echo", "message=hi") // the host's multiplexer runs
	narrow := m.startSession("narrow")
	defer m.run(nil, "session", "stop", narrow)
	sleeper := m.startSession("sleeper")
	defer m.run(nil, "session", "stop", sleeper)
	id, _ := sessionParts(t, narrow)
	for name, socket := range map[string]string{"the host's": m.socket(""), "another session's": m.sessionSocket(sleeper)} {
		env := []string{"MCP_SESSION=" + sessionEnv(id, socket)}
		r := m.run(env, "call", "fake.getenv", "name=HOME")
		if r.code != exit.Usage || !strings.Contains(r.stderr, "does not serve session "+id) {
			t.Errorf("MCP_SESSION naming %s multiplexer: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
	if r := m.run([]string{"MCP_SESSION=" + narrow}, "call", "fake.echo", "message=hi"); r.code != 0 || r.stdout != "hi\n" {
		t.Errorf("the session's own multiplexer: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A session's multiplexer killed with SIGKILL is not replaced from inside
// the session: no multiplexer is started from the agent's environment and
// nothing connects directly, even with MCP_NO_MUX; the session has ended.
func TestSessionMuxKilledStaysDown(t *testing.T) {
	m := newMuxEnv(t)
	env := m.startSession("")
	defer m.run(nil, "session", "stop", env)
	in := []string{"MCP_SESSION=" + env}
	if r := m.run(in, "call", "fake.echo", "message=one"); r.code != 0 {
		t.Fatalf("first call: exit %d, %q", r.code, r.stderr)
	}
	sock := m.sessionSocket(env)
	if err := syscall.Kill(m.status(sock).PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !mux.WaitGone(sock, 5*time.Second) {
		t.Fatal("the killed multiplexer still holds its lock")
	}
	before := len(m.eventLines("pid"))
	for _, extra := range [][]string{nil, {"MCP_NO_MUX=1"}} {
		r := m.run(append(slices.Clone(in), extra...), "call", "fake.echo", "message=two")
		if r.code != exit.Upstream || !strings.Contains(r.stderr, "has no multiplexer running") {
			t.Errorf("after the kill %v: exit %d, stdout %q, stderr %q", extra, r.code, r.stdout, r.stderr)
		}
	}
	if mux.Running(sock) {
		t.Error("a multiplexer was started from inside the session")
	}
	if after := len(m.eventLines("pid")); after != before {
		t.Errorf("a server was started from inside the session (%d starts before, %d after)", before, after)
	}
	if out := m.must("session", "list"); !strings.Contains(out, "ended: its multiplexer is gone") {
		t.Errorf("session list does not show the session as ended:\n%s", out)
	}
}
