//go:build unix

package procgroup

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watchedEnv, set in a holder's environment, makes it start its spawner as
// systems without a parent-death signal do, with a watchdog run by the
// shell the variable names, and say "group PGID" first.
const watchedEnv = "PROCGROUP_TEST_WATCHED"

// holderStart is how the holder role starts its spawner.
func holderStart(cmd *exec.Cmd) (*Group, error) {
	sh := os.Getenv(watchedEnv)
	if sh == "" {
		return Start(cmd)
	}
	shell = sh
	g, err := start(cmd, false)
	if err == nil {
		os.Stdout.WriteString("group " + strconv.Itoa(g.pid) + "\n")
	}
	return g, err
}

// shells are the shells here that can run the watchdog, each by a link
// named sh, as /bin/sh is on macOS (bash or zsh in their sh modes) and on
// Debian (dash).
func shells(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	seen := map[string]bool{}
	for _, name := range []string{"sh", "dash", "bash", "zsh"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		link := filepath.Join(t.TempDir(), "sh")
		if err := os.Symlink(path, link); err != nil {
			t.Fatal(err)
		}
		found[filepath.Base(path)] = link
	}
	if len(found) == 0 {
		t.Fatal("no shell found")
	}
	return found
}

// expectGroup is expect, with one line "group PGID" besides among them,
// whose PGID it returns.
func expectGroup(t *testing.T, lines <-chan string, want ...string) int {
	t.Helper()
	left := map[string]bool{}
	for _, w := range want {
		left[w] = true
	}
	pgid := 0
	for len(left) > 0 || pgid == 0 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the processes ended before saying %v (group %d)", left, pgid)
			}
			if n, ok := strings.CutPrefix(line, "group "); ok && pgid == 0 {
				var err error
				if pgid, err = strconv.Atoi(n); err != nil || pgid <= 0 {
					t.Fatalf("the holder said %q", line)
				}
				continue
			}
			if !left[line] {
				t.Fatalf("a process said %q; waiting for %v", line, left)
			}
			delete(left, line)
		case <-time.After(30 * time.Second):
			t.Fatalf("no process said %v in 30s (group %d)", left, pgid)
		}
	}
	return pgid
}

// groupGone waits a few seconds for the group pgid to have no process left.
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for groupAlive(t, pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("a process of group %d was still running 5s after the rest ended", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Where the kernel has no parent-death signal, a holder killed with
// SIGKILL leaves no process of its server's group behind: the watchdog
// sends the group SIGTERM, then SIGKILL to what lives on, which ends the
// watchdog too. The holder is this test binary, running the same code a
// multiplexer does.
func TestStart_watchdogEndsGroupOfKilledHolder(t *testing.T) {
	for name, sh := range shells(t) {
		t.Run(name, func(t *testing.T) {
			cmd := role("holder")
			cmd.Env = append(cmd.Env, watchedEnv+"="+sh, stubbornEnv+"=1")
			lines := started(t, (*exec.Cmd).Start, cmd)
			defer cmd.Wait()
			pgid := expectGroup(t, lines, "holding", "sleeping", "spawned")
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			expect(t, lines, "spawner got SIGTERM", "sleeper got SIGTERM")
			ended(t, lines, "the holder was killed")
			groupGone(t, pgid)
		})
	}
}

// startWatched starts cmd as a group with a watchdog.
func startWatched(t *testing.T, cmd *exec.Cmd) (*Group, <-chan string) {
	t.Helper()
	var g *Group
	lines := started(t, func(cmd *exec.Cmd) (err error) {
		g, err = start(cmd, false)
		return err
	}, cmd)
	if g.dog == nil {
		t.Fatal("the group has no watchdog")
	}
	return g, lines
}

// Closing a group dismisses its watchdog, which leaves quietly and stops
// nothing: the server is this process's to stop.
func TestGroup_Close_dismissesWatchdog(t *testing.T) {
	cmd := role("spawner")
	g, lines := startWatched(t, cmd)
	defer cmd.Wait()
	expect(t, lines, "sleeping", "spawned")
	g.Close()
	select {
	case <-g.dog.gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the watchdog was still running 5s after Close")
	}
	if g.dog.waitErr != nil {
		t.Errorf("the dismissed watchdog ended with %v; want it to leave quietly", g.dog.waitErr)
	}
	if !g.Signal(syscall.SIGKILL) {
		t.Fatal("closing the group ended the server")
	}
	ended(t, lines, "the group was killed")
}

// A watchdog holds nothing of this process's but its own pipe (no stdin,
// stdout or stderr, none of the server's pipes), lives on through SIGTERM,
// and is not counted by Signal(0).
func TestGroup_Signal_watchdogIsNotTheServers(t *testing.T) {
	cmd := role("sleeper")
	g, lines := startWatched(t, cmd)
	defer g.Close()
	expect(t, lines, "sleeping")
	if fds, ok := openFiles(t, g.dog.p.Pid); ok {
		own, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(g.dog.w.Fd())))
		want := map[int]string{0: own, 1: os.DevNull, 2: os.DevNull}
		for fd, target := range fds {
			if w, ok := want[fd]; ok && target != w {
				t.Errorf("the watchdog's descriptor %d is %s; want %s", fd, target, w)
			}
			if !ok && !inherited(fd, target) {
				t.Errorf("the watchdog holds descriptor %d (%s) of this process's", fd, target)
			}
		}
	}
	g.Signal(syscall.SIGTERM)
	ended(t, lines, "the group got SIGTERM")
	_ = cmd.Wait()
	select {
	case <-g.dog.gone:
		t.Fatal("SIGTERM ended the watchdog")
	default:
	}
	if g.Signal(0) {
		t.Error("Signal(0) says a group that only its watchdog is left in is not empty")
	}
}

// A server that no watchdog can watch is not left running.
func TestStart_unwatchedServerIsStopped(t *testing.T) {
	defer func(sh string) { shell = sh }(shell)
	shell = filepath.Join(t.TempDir(), "sh")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := role("spawner")
	cmd.Stdout = w
	_, err = start(cmd, false)
	w.Close()
	if err == nil || !strings.Contains(err.Error(), "watch process group") {
		t.Fatalf("start = %v; want the watchdog's failure", err)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("start = %v; want it to say the shell does not exist", err)
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, r)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the unwatched server was still running 20s later")
	}
}
