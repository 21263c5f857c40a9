package session

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

func TestParseEnv(t *testing.T) {
	id := strings.Repeat("ab", 12)
	good := []struct {
		v      string
		host   int
		socket string
	}{
		{id + ":1000@/run/user/1000/mcp/0123.sock", 1000, "/run/user/1000/mcp/0123.sock"},
		{id + ":0@/tmp/mcp-session-" + id + "/mux.sock", 0, "/tmp/mcp-session-" + id + "/mux.sock"},
		{id + ":2147483647@/tmp/a@b:c/mux.sock", 2147483647, "/tmp/a@b:c/mux.sock"},
		{id + ":501@", 501, ""}, // no multiplexer on this system
	}
	if runtime.GOOS == "windows" {
		// No uids: every host is -1, and sockets have Windows's paths.
		sock := `C:\Users\Ada Lovelace\AppData\Local\Temp\mcp-2\0123.sock`
		good = []struct {
			v      string
			host   int
			socket string
		}{
			{id + ":-1@" + sock, -1, sock},
			{id + `:-1@C:\a@b:c\mux.sock`, -1, `C:\a@b:c\mux.sock`},
			{id + ":-1@", -1, ""},
		}
	}
	for _, c := range good {
		gotID, host, socket, err := ParseEnv(c.v)
		if err != nil || gotID != id || host != c.host || socket != c.socket {
			t.Errorf("ParseEnv(%q) = %q, %d, %q, %v", c.v, gotID, host, socket, err)
		}
		if back := FormatEnv(gotID, host, socket); back != c.v {
			t.Errorf("FormatEnv of ParseEnv(%q) = %q", c.v, back)
		}
	}
	bad := []string{
		"", id, ":0@/tmp/x.sock", "XYZ:0@/tmp/x.sock", id + ":0@relative.sock", id + ":0@/tmp/../etc/x.sock",
		id + ":0@/tmp//x.sock", id + ":0@/tmp/x\x00.sock", "short:0@/tmp/x.sock",
		// the value of sessions before it named their host
		id + "@/tmp/x.sock", id + "@",
		// a uid as nothing but its decimal digits print it
		id + ":@/tmp/x.sock", id + ":-1@/tmp/x.sock", id + ":+1@/tmp/x.sock", id + ":01@/tmp/x.sock",
		id + ": 1@/tmp/x.sock", id + ":1 @/tmp/x.sock", id + ":0x1@/tmp/x.sock", id + ":1e3@/tmp/x.sock",
		id + ":4294967295@/tmp/x.sock", id + ":4294967296@/tmp/x.sock", id + ":99999999999999999999@/tmp/x.sock",
		id + ":1:2@/tmp/x.sock", id + "::1@/tmp/x.sock", id + ":1000", "1000:" + id + "@/tmp/x.sock",
	}
	if runtime.GOOS == "windows" {
		bad = append(bad, id+":0@C:\\x.sock", id+":1000@C:\\x.sock", id+`:-1@C:\x\..\y.sock`, id+":-1@x.sock", id+":-2@C:\\x.sock")
	} else {
		bad = append(bad, id+":-1@")
	}
	for _, v := range bad {
		_, _, _, err := ParseEnv(v)
		var be *BadEnvError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "ID:UID@SOCKET") {
			t.Errorf("ParseEnv(%q) = %v, want a *BadEnvError naming the format", v, err)
		}
	}
}

// Whatever MCP_SESSION holds, ParseEnv either refuses it or returns a
// valid id, a uid and a clean absolute socket path (or none) that
// FormatEnv prints back as the same value, and never panics.
func FuzzParseEnv(f *testing.F) {
	f.Add(strings.Repeat("0", 24) + ":1000@/tmp/a.sock")
	f.Add(strings.Repeat("0", 24) + "@/tmp/a.sock")
	f.Add(":@")
	f.Add(strings.Repeat("f", 16) + ":0@/../x")
	f.Fuzz(func(t *testing.T, v string) {
		id, host, socket, err := ParseEnv(v)
		if err != nil {
			if !strings.Contains(err.Error(), "does not name a session") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if !ValidID(id) || host < 0 && runtime.GOOS != "windows" || socket != "" && (!filepath.IsAbs(socket) || filepath.Clean(socket) != socket) {
			t.Fatalf("ParseEnv(%q) = %q, %d, %q", v, id, host, socket)
		}
		if FormatEnv(id, host, socket) != v {
			t.Fatalf("ParseEnv(%q) lost something: %q, %d, %q", v, id, host, socket)
		}
	})
}

// A launch secret is known by its digest only, and only the secret it was
// made from matches it.
func TestLaunch(t *testing.T) {
	secret, digest := NewLaunch()
	st := &State{Launch: digest}
	if strings.Contains(digest, secret) || !st.Launched(secret) {
		t.Fatalf("the launch secret does not match its own digest (or the digest holds it)")
	}
	other, _ := NewLaunch()
	for _, s := range []string{"", other, digest} {
		if st.Launched(s) {
			t.Errorf("Launched(%q) is true", s)
		}
	}
	if (&State{}).Launched("") {
		t.Error("a state without a launch digest takes the empty secret")
	}
}

// Same compares what a session is fixed to, field by field.
func TestSame(t *testing.T) {
	base := func() *State {
		return &State{ID: "a1b2c3d4e5f60718", Root: "/r", Agent: "x", Socket: "/s", Launch: "d",
			Surface: &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", Tools: []string{"echo"}}}}}
	}
	if !base().Same(base()) {
		t.Fatal("a state is not the same as itself")
	}
	edits := map[string]func(*State){
		"root":    func(s *State) { s.Root = "/other" },
		"agent":   func(s *State) { s.Agent = "" },
		"user":    func(s *State) { s.User = true },
		"socket":  func(s *State) { s.Socket = "/t" },
		"launch":  func(s *State) { s.Launch = "e" },
		"guest":   func(s *State) { s.Guest = &Guest{Name: "g", UID: 7} },
		"surface": func(s *State) { s.Surface.Servers[0].All = true },
	}
	for name, edit := range edits {
		s := base()
		edit(s)
		if base().Same(s) {
			t.Errorf("a state with another %s is the same", name)
		}
	}
}

// A session with no multiplexer (a system where none runs) has not ended
// for want of one: session list says each call connects directly. One
// whose multiplexer does not answer has ended.
func TestRow_Line(t *testing.T) {
	st := &State{ID: "a1b2c3d4e5f60718", Root: "/r", Agent: "x", Surface: &catalog.Surface{Mode: catalog.ModeCLI}}
	if got := st.Row().Line(); !strings.HasSuffix(got, "  no multiplexer on this system: each call connects directly") {
		t.Errorf("a session without a socket: %q", got)
	}
	st.Socket = "/run/user/1000/mcp/a.sock"
	r := st.Row()
	if got := r.Line(); !strings.HasSuffix(got, "  ended: its multiplexer is gone") {
		t.Errorf("a session whose multiplexer does not answer: %q", got)
	}
	r.Running, r.Idle = true, 65
	if got := r.Line(); !strings.HasSuffix(got, "  idle 1m5s") {
		t.Errorf("a running session: %q", got)
	}
}
