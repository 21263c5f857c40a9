package mux

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv/tempdir"
)

// winDir is a new directory of the test's that Wine can remove.
func winDir(t *testing.T) string { return tempdir.New(t, "mux") }

// A socket's lock is one multiplexer's at a time (LockFileEx), says that
// one runs while it is held, and leaves the pid written at its start
// readable; a lock nobody holds, with no socket beside it, is swept.
func TestWindowsLock(t *testing.T) {
	socket := filepath.Join(winDir(t), "k.sock")
	if Running(socket) {
		t.Fatal("Running before any lock")
	}
	lock, err := takeLock(socket + ".lock")
	if err != nil {
		t.Fatalf("takeLock: %v", err)
	}
	if _, err := lock.WriteAt([]byte("4242\n"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := takeLock(socket + ".lock"); !errors.Is(err, ErrBusy) {
		t.Errorf("a second takeLock = %v; want ErrBusy", err)
	}
	if !Running(socket) {
		t.Error("Running is false while the lock is held")
	}
	if pid := lockPID(socket); pid != 4242 {
		t.Errorf("lockPID = %d while the lock is held; want 4242", pid)
	}
	sweep(filepath.Dir(socket))
	if _, err := os.Stat(socket + ".lock"); err != nil {
		t.Errorf("sweep removed a held lock: %v", err)
	}
	lock.Close()
	if Running(socket) {
		t.Error("Running after the lock was let go")
	}
	// Older than sweep's few seconds.
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(socket+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	sweep(filepath.Dir(socket))
	if _, err := os.Stat(socket + ".lock"); !os.IsNotExist(err) {
		t.Errorf("sweep left a lock nobody holds: %v", err)
	}
}

// The log beside a socket is opened afresh, emptied.
func TestWindowsOpenLog(t *testing.T) {
	socket := filepath.Join(winDir(t), "k.sock")
	if err := os.WriteFile(socket+".log", []byte("an older multiplexer's log"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openLog(socket)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	f.Close()
	if b, _ := os.ReadFile(socket + ".log"); string(b) != "new\n" {
		t.Errorf("the log holds %q", b)
	}
}

// A socket's path is in the private runtime directory, however long the
// temporary directory's path: the file there names a pipe, and is no
// AF_UNIX socket's path.
func TestWindowsSocketPath(t *testing.T) {
	t.Setenv("LocalAppData", winDir(t))
	tmp := winDir(t)
	long := filepath.Join(tmp, strings.Repeat("d", 120))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{tmp, long} {
		t.Setenv("TMP", dir)
		t.Setenv("TEMP", dir)
		p, err := SocketPath(strings.Repeat("0", keyLen))
		if err != nil || filepath.Dir(filepath.Dir(p)) != dir {
			t.Errorf("SocketPath with TEMP=%s = %s, %v; want a path in a directory of it", dir, p, err)
		}
	}
}

// What Ensure hands a multiplexer reaches it on Windows, where nothing
// passes by descriptor number: the launch secret on its handle, and the
// ready line back on the ready pipe's, which start reads.
func TestWindowsHandOver(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "MUX_HANDOVER_CHILD=1", launchFDEnv+"=4")
	f, err := launchPipe("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{f}
	out := filepath.Join(winDir(t), "child.out")
	cmd.Env = append(cmd.Env, "MUX_HANDOVER_OUT="+out)
	if err := start(t.Context(), cmd); err != nil {
		t.Fatalf("start: %v", err)
	}
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = os.ReadFile(out); len(got) > 0 {
			break
		}
	}
	if string(got) != "s3cret" {
		t.Errorf("the child read the launch secret as %q", got)
	}
}

// The test binary started with MUX_HANDOVER_CHILD is TestWindowsHandOver's
// multiplexer: it reads its launch secret, writes it down (or that the
// launch variable is still set, which the test refuses), says it is
// ready, and exits.
func init() {
	if os.Getenv("MUX_HANDOVER_CHILD") == "" {
		return
	}
	secret := readLaunch()
	if os.Getenv(launchFDEnv) != "" {
		secret = "the launch variable is still set"
	}
	_ = os.WriteFile(os.Getenv("MUX_HANDOVER_OUT"), []byte(secret), 0o600)
	Ready(nil, false)
	os.Exit(0)
}

// A session's multiplexer listens where every Windows can: its socket's
// path is in the runtime directory, and calls in a session go through it.
func TestWindowsAvailable(t *testing.T) {
	t.Setenv("LocalAppData", winDir(t))
	tmp := winDir(t)
	t.Setenv("TMP", tmp)
	t.Setenv("TEMP", tmp)
	socket, err := SessionSocket(strings.Repeat("ab", 12), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !Supported || !strings.HasPrefix(socket, tmp) {
		t.Errorf("Supported = %v, SessionSocket = %q; want a socket in %s", Supported, socket, tmp)
	}
	if direct(Target{InSession: true, socket: socket}) {
		t.Error("a session's calls connect directly")
	}
}
