package session

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEnv(t *testing.T) {
	id := strings.Repeat("ab", 12)
	good := []struct{ v, socket string }{
		{id + "@/run/user/1000/mcp/0123.sock", "/run/user/1000/mcp/0123.sock"},
		{id + "@/tmp/mcp-session-" + id + "/mux.sock", "/tmp/mcp-session-" + id + "/mux.sock"},
		{id + "@", ""}, // no multiplexer on this system
	}
	for _, c := range good {
		gotID, socket, err := ParseEnv(c.v)
		if err != nil || gotID != id || socket != c.socket {
			t.Errorf("ParseEnv(%q) = %q, %q, %v", c.v, gotID, socket, err)
		}
	}
	bad := []string{
		"", id, "@/tmp/x.sock", "XYZ@/tmp/x.sock", id + "@relative.sock", id + "@/tmp/../etc/x.sock",
		id + "@/tmp//x.sock", id + "@/tmp/x\x00.sock", "short@/tmp/x.sock",
	}
	for _, v := range bad {
		_, _, err := ParseEnv(v)
		var be *BadEnvError
		if !errors.As(err, &be) {
			t.Errorf("ParseEnv(%q) = %v, want a *BadEnvError", v, err)
		}
	}
}

// Whatever MCP_SESSION holds, ParseEnv either refuses it or returns a
// valid id and a clean absolute socket path (or none), and never panics.
func FuzzParseEnv(f *testing.F) {
	f.Add(strings.Repeat("0", 24) + "@/tmp/a.sock")
	f.Add("@")
	f.Add(strings.Repeat("f", 16) + "@/../x")
	f.Fuzz(func(t *testing.T, v string) {
		id, socket, err := ParseEnv(v)
		if err != nil {
			if !strings.Contains(err.Error(), "does not name a session") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if !ValidID(id) || socket != "" && (!filepath.IsAbs(socket) || filepath.Clean(socket) != socket) {
			t.Fatalf("ParseEnv(%q) = %q, %q", v, id, socket)
		}
		if id+"@"+socket != v {
			t.Fatalf("ParseEnv(%q) lost something: %q, %q", v, id, socket)
		}
	})
}
