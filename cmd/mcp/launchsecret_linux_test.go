package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux"
)

// launchCopyEnv names the file a multiplexer started with it copies its
// launch secret to (copyLaunch): what an agent that got hold of the secret
// would hold.
const launchCopyEnv = "MCP_TEST_LAUNCH_COPY"

func init() { launchCopy = copyLaunch }

// copyLaunch, in `mcp __mux` with MCP_TEST_LAUNCH_COPY set, copies the
// launch secret it was given to that file and hands it on as it came: in
// the environment, or on the descriptor MCP_MUX_LAUNCH_FD names.
func copyLaunch() {
	to := os.Getenv(launchCopyEnv)
	if to == "" || len(os.Args) != 2 || os.Args[1] != mux.Arg {
		return
	}
	os.Unsetenv(launchCopyEnv)
	secret := os.Getenv("MCP_MUX_LAUNCH")
	if fd, err := strconv.Atoi(os.Getenv("MCP_MUX_LAUNCH_FD")); err == nil && fd > 2 {
		secret = readFD(fd)
		r, w, err := os.Pipe()
		if err != nil {
			panic(err)
		}
		_, _ = w.WriteString(secret)
		w.Close()
		if err := unix.Dup2(int(r.Fd()), fd); err != nil {
			panic(err)
		}
		r.Close()
	}
	if err := os.WriteFile(to, []byte(secret), 0o600); err != nil {
		panic(err)
	}
}

// readFD reads descriptor fd to its end, without an *os.File that would
// close it.
func readFD(fd int) string {
	var out []byte
	buf := make([]byte, 256)
	for len(out) < 4096 {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			break
		}
		out = append(out, buf[:n]...)
	}
	return string(out)
}

// startCopying starts a session for agent whose multiplexer copies its
// launch secret, and returns MCP_SESSION and the secret.
func (m *muxEnv) startCopying(agent string) (env, secret string) {
	m.t.Helper()
	to := filepath.Join(m.t.TempDir(), "launch")
	env = m.startSession(agent, launchCopyEnv+"="+to)
	data, err := os.ReadFile(to)
	if err != nil || len(data) == 0 {
		m.t.Fatalf("the session's multiplexer gave no launch secret: %v", err)
	}
	return env, string(data)
}

// A session's multiplexer holds its launch secret in no environment: not
// even in the one it started with, which /proc shows for its whole life.
func TestSessionLaunchSecretNotInEnviron(t *testing.T) {
	m := newMuxEnv(t)
	env, secret := m.startCopying("narrow")
	pid := m.status(m.sessionSocket(env)).PID
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range strings.Split(string(environ), "\x00") {
		if strings.HasPrefix(kv, "MCP_MUX_LAUNCH=") || strings.Contains(kv, secret) {
			t.Errorf("the session's multiplexer %d has the launch secret in its environment: %.30s…", pid, kv)
		}
	}
}

// A launch secret starts one multiplexer. Once the session's has died,
// whoever got hold of the secret cannot start another, which would serve
// the session with that one's own environment.
func TestSessionLaunchSecretUsedOnce(t *testing.T) {
	m := newMuxEnv(t)
	env, secret := m.startCopying("sleeper")
	socket := m.sessionSocket(env)
	if err := syscall.Kill(m.status(socket).PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !mux.WaitGone(socket, 10*time.Second) {
		t.Fatal("the session's multiplexer did not die")
	}
	in := []string{"MCP_SESSION=" + env}
	// The secret as it is handed to a multiplexer, both ways it ever was.
	cmd := m.command(append(in, "MCP_MUX_LAUNCH="+secret, "MCP_MUX_LAUNCH_FD=3", "AGENT_OWN=set by the agent"), mux.Arg)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.WriteString(secret)
	w.Close()
	cmd.ExtraFiles = []*os.File{r}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var exited error
	ended := eventually(20*time.Second, func() bool {
		select {
		case exited = <-done:
			return true
		default:
			return mux.Running(socket)
		}
	})
	switch {
	case mux.Running(socket):
		r := m.run(in, "call", "fake.getenv", "name=AGENT_OWN")
		t.Errorf("a multiplexer started with the spent launch secret serves the session: exit %d, stdout %q", r.code, r.stdout)
		_ = cmd.Process.Kill()
		<-done
	case !ended:
		t.Errorf("mcp %s with the spent launch secret neither serves nor exits", mux.Arg)
		_ = cmd.Process.Kill()
		<-done
	case exited == nil || !strings.Contains(stderr.String(), "only session start starts a session's multiplexer"):
		t.Errorf("mcp %s with the spent launch secret: %v, stderr %q", mux.Arg, exited, stderr.String())
	}
	if r := m.run(in, "call", "fake.getenv", "name=HOME"); r.code != exit.Upstream {
		t.Errorf("a call in the session whose multiplexer died: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
