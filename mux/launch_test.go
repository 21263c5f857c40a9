//go:build unix

package mux

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launchFDOf hands readLaunch a descriptor of its own on the read end of
// a pipe that holds data; with open set the write end stays open.
func launchFDOf(t *testing.T, data string, open bool) int {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if _, err := w.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if !open {
		w.Close()
	}
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(launchFDEnv, strconv.Itoa(fd))
	return fd
}

// closed says whether fd is no open descriptor of this process.
func closed(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) != nil
}

func TestReadLaunch(t *testing.T) {
	secret := strings.Repeat("ab", 32)
	fd := launchFDOf(t, secret, false)
	if got := readLaunch(); got != secret {
		t.Errorf("readLaunch() = %q, want %q", got, secret)
	}
	if _, ok := os.LookupEnv(launchFDEnv); ok || !closed(fd) {
		t.Errorf("after readLaunch: %s set %v, descriptor %d closed %v", launchFDEnv, ok, fd, closed(fd))
	}
	// More than a secret is none.
	launchFDOf(t, strings.Repeat("a", maxLaunch+1), false)
	if got := readLaunch(); got != "" {
		t.Errorf("readLaunch() of %d bytes = %q", maxLaunch+1, got)
	}
	// A writer that never ends the pipe does not hold it up.
	fd = launchFDOf(t, secret[:10], true)
	start := time.Now()
	if got := readLaunch(); got != "" || time.Since(start) > launchWait+3*time.Second || !closed(fd) {
		t.Errorf("readLaunch() with the writer open = %q after %v, descriptor closed %v", got, time.Since(start), closed(fd))
	}
	// Nothing named, or no descriptor of ours, is no secret.
	for _, v := range []string{"", "0", "2", "x", "99999"} {
		t.Setenv(launchFDEnv, v)
		if got := readLaunch(); got != "" {
			t.Errorf("readLaunch() with %s=%q = %q", launchFDEnv, v, got)
		}
	}
}
