package mux

import (
	"net"
	"strings"
	"testing"
)

// A listener the system does not name is refused, whichever user the
// client wants, -1 included: on Windows, which has no uids, every host is
// -1, and an unknown listener must not pass for it.
func TestWrongListener_unknown(t *testing.T) {
	a, b := net.Pipe() // no peer the system names
	defer a.Close()
	defer b.Close()
	for _, host := range []int{-1, 0, 1000} {
		err := wrongListener(a, "/s/mux.sock", host)
		if err == nil || err.UID != -1 || !strings.Contains(err.Error(), "does not say that who listens on /s/mux.sock is you") {
			t.Errorf("wrongListener(a pipe, host %d) = %v; want it refused", host, err)
		}
	}
}
