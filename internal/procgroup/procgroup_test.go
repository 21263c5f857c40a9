package procgroup

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// roleEnv, in the environment of this test binary, makes it one of the
// processes the tests start instead of running tests, as TestMain says.
const roleEnv = "PROCGROUP_TEST_ROLE"

// stubbornEnv, set, makes every role say "ROLE got SIGTERM" when it gets
// one, and live on.
const stubbornEnv = "PROCGROUP_TEST_STUBBORN"

// lifetime is how long a started process lives unless it is killed: longer
// than any test waits for one to end.
const lifetime = 60 * time.Second

// TestMain runs the binary in the role roleEnv names. Every role writes to
// its stdout, which all of them share with the test, so the test's end of
// that pipe reads EOF only when every one of them has ended.
//
//   - sleeper says "sleeping" and lives out its lifetime.
//   - spawner starts a sleeper, its child, says "spawned" and lives out
//     its lifetime.
//   - holder starts a spawner in a Group (as holderStart does), says
//     "holding" and lives out its lifetime.
func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) != "" && os.Getenv(stubbornEnv) != "" {
		terms := make(chan os.Signal, 1)
		signal.Notify(terms, syscall.SIGTERM)
		go func() {
			for range terms {
				os.Stdout.WriteString(os.Getenv(roleEnv) + " got SIGTERM\n")
			}
		}()
	}
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "sleeper":
		os.Stdout.WriteString("sleeping\n")
	case "spawner":
		if err := role("sleeper").Start(); err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("spawned\n")
	case "holder":
		if _, err := holderStart(role("spawner")); err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("holding\n")
	}
	time.Sleep(lifetime)
	os.Exit(0)
}

// role is this test binary in role r, writing to this process's stdout.
func role(r string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"="+r)
	cmd.Stdout = os.Stdout
	return cmd
}

// started runs cmd with its stdout a pipe of the test's; the lines it and
// its descendants write come on the channel, which is closed when the last
// of them ends.
func started(t *testing.T, start func(*exec.Cmd) error, cmd *exec.Cmd) <-chan string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	err = start(cmd)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	lines := make(chan string, 8)
	go func() {
		defer close(lines)
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	return lines
}

// expect waits for the lines want, in any order.
func expect(t *testing.T, lines <-chan string, want ...string) {
	t.Helper()
	left := map[string]bool{}
	for _, w := range want {
		left[w] = true
	}
	for len(left) > 0 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the processes ended before saying %v", left)
			}
			if !left[line] {
				t.Fatalf("a process said %q; waiting for %v", line, left)
			}
			delete(left, line)
		case <-time.After(30 * time.Second):
			t.Fatalf("no process said %v in 30s", left)
		}
	}
}

// ended waits for every process writing to lines to end.
func ended(t *testing.T, lines <-chan string, what string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("%s: a process was still running 20s later", what)
		}
	}
}

// Killing a group kills the process it started and what that one started.
func TestGroup_Signal_killsDescendants(t *testing.T) {
	var g *Group
	cmd := role("spawner")
	lines := started(t, func(cmd *exec.Cmd) (err error) {
		g, err = Start(cmd)
		return err
	}, cmd)
	defer cmd.Wait()
	defer g.Close()
	expect(t, lines, "sleeping", "spawned")
	if !g.Signal(0) {
		t.Error("Signal(0) says a running group is empty")
	}
	if !g.Signal(syscall.SIGKILL) {
		t.Error("Signal(SIGKILL) says a running group is empty")
	}
	ended(t, lines, "the group was killed")
}
