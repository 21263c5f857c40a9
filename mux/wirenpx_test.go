package mux

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A refused package crosses the multiplexer's socket as itself: the same
// line, the same summary, the same exit code.
func TestWire_foreignPackage(t *testing.T) {
	in := &upstream.ForeignPackageError{Server: "everything", Runner: "npx", Path: "/x/node_modules", Owner: "ada (uid 1001)"}
	sent := &upstream.UnavailableError{Server: "everything", Err: in}
	out := decodeError(encodeError(sent))
	var fp *upstream.ForeignPackageError
	if !errors.As(out, &fp) || !reflect.DeepEqual(fp, in) {
		t.Errorf("decoded %#v, want %#v", out, in)
	}
	if out.Error() != sent.Error() || exit.Code(out) != exit.Upstream {
		t.Errorf("decoded %q (exit code %d), want %q (%d)", out, exit.Code(out), sent, exit.Upstream)
	}
}

// A session's guest reads the refusal without the host's paths: the
// server cannot be used, the user who started the session can fix it, and
// the exit code is the same.
func TestGuestView_foreignPackage(t *testing.T) {
	in := &upstream.UnavailableError{Server: "everything", Err: &upstream.ForeignPackageError{
		Server: "everything", Runner: "npx", Path: "/home/host/proj/node_modules", Owner: "ada (uid 1001)"}}
	r := guestView(&response{Error: encodeError(in)})
	b, _ := json.Marshal(r)
	for _, host := range []string{"/home/host", "ada"} {
		if strings.Contains(string(b), host) {
			t.Errorf("the guest's view holds %q: %s", host, b)
		}
	}
	err := decodeError(r.Error)
	var hs *HostSideError
	want := "server everything cannot be used: the package it would run is another user's, or others may change it; the user who started the session can fix that"
	if !errors.As(err, &hs) || hs.Error() != want || hs.Summary() != "not started" || exit.Code(err) != exit.Upstream {
		t.Errorf("as the guest reads it: %T %q (exit code %d), want %q (%d)", err, err, exit.Code(err), want, exit.Upstream)
	}
}
