package winpipe

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// This process, and a child it started, run as this user: their tokens
// name the same user.
func TestSameUser(t *testing.T) {
	if !SameUser(uint32(os.Getpid())) {
		t.Errorf("SameUser(this process) is false")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "WINPIPE_HELPER=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	if !SameUser(uint32(cmd.Process.Pid)) {
		t.Errorf("SameUser(a child of this process) is false")
	}
}

// A process that is not there, or whose token cannot be read (pid 0, the
// idle process; pid 4, the system's), is not this user.
func TestSameUser_notMe(t *testing.T) {
	for _, pid := range []uint32{0, 4, 0xfffffff0} {
		if SameUser(pid) {
			t.Errorf("SameUser(%d) is true", pid)
		}
	}
}

// What is not a named pipe's connection has no peer the system names.
func TestPeerIsMe_notANamedPipe(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if PeerIsMe(a) {
		t.Error("PeerIsMe(a pipe) is true")
	}
}

// The test binary started with WINPIPE_HELPER is TestSameUser's child:
// it waits for its stdin to close, and exits.
func init() {
	if os.Getenv("WINPIPE_HELPER") == "" {
		return
	}
	_, _ = os.Stdin.Read(make([]byte, 1))
	os.Exit(0)
}
