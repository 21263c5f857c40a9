//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
	"github.com/mcpsh/mcp/mux"
)

// A directory another user made where a predictable runtime directory
// would be ($TMPDIR/mcp-UID), or a symlink to one of theirs, takes
// nothing away: with XDG_RUNTIME_DIR unset the host's multiplexer still
// starts and serves the call, a session starts, and outputs are saved,
// none of it in or through what they planted.
func TestRuntimeDirPlanted(t *testing.T) {
	for _, plant := range []string{"dir", "symlink"} {
		t.Run(plant, func(t *testing.T) {
			m := newMuxEnv(t)
			other := localuser.New(t)
			planted := filepath.Join(m.tmp, "mcp-"+itoa(os.Getuid()))
			theirs := filepath.Join(m.tmp, "theirs")
			mkdir(t, theirs)
			other.Chown(t, theirs)
			if plant == "dir" {
				mkdir(t, planted)
			} else if err := os.Symlink(theirs, planted); err != nil {
				t.Fatal(err)
			}
			other.Chown(t, planted)

			if r := m.run(nil, "call", "fake.echo", "message=hi"); r.code != 0 || r.stdout != "hi\n" || r.stderr != "" {
				t.Errorf("call: exit %d, stdout %q, stderr %q; want hi through the multiplexer", r.code, r.stdout, r.stderr)
			} else if sock := m.socket(""); !mux.Running(sock) || under(sock, planted) {
				t.Errorf("the multiplexer's socket %s: running %v", sock, mux.Running(sock))
			}

			r := m.run(nil, "session", "start", "--agent", "narrow")
			if r.code != 0 {
				t.Errorf("session start: exit %d, stderr %q", r.code, r.stderr)
			} else {
				id, _ := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
				if under(m.sessionSocket(id), planted) {
					t.Errorf("the session's socket is under %s", planted)
				}
				if r := m.run(nil, "session", "stop", id); r.code != 0 {
					t.Errorf("session stop: exit %d, stderr %q", r.code, r.stderr)
				}
			}

			r = m.run(nil, "call", "fake.image")
			if r.code != 0 || r.stderr != "" {
				t.Errorf("call fake.image: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			} else if saved := savedPath(t, r.stdout); under(saved, planted) {
				t.Errorf("the image was saved under %s", planted)
			}
			r = m.run(nil, "--max-output", "100", "call", "fake.big", "bytes=1000")
			if r.code != 0 || !strings.Contains(r.stderr, "the whole output is in ") {
				t.Errorf("call fake.big over --max-output: exit %d, stderr %q", r.code, r.stderr)
			}

			if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
				t.Errorf("the other user's directory holds %v", entries)
			}
			if st, err := os.Lstat(planted); err != nil || st.Mode().Perm() != 0o700 && plant == "dir" {
				t.Errorf("what they planted became %v, %v", st, err)
			}
		})
	}
}

// The runtime directory is remembered: every call uses the same one, for
// sockets and saved outputs alike. One removed (a cleaned /tmp) is made
// again in silence; one replaced by a directory of another user's is
// left to them, and a new one is made with one warning, once.
func TestRuntimeDirRemembered(t *testing.T) {
	m := newMuxEnv(t)
	other := localuser.New(t)
	first := savedDir(t, m.must("call", "fake.image"))
	if again := savedDir(t, m.must("call", "fake.image")); again != first {
		t.Errorf("the second call saved in %s, the first in %s", again, first)
	}
	// A socket whose path would be too long is in the directory that the
	// runtime directory names for it (privdir.ShortRecord).
	short, _ := os.ReadFile(filepath.Join(first, privdir.ShortRecord))
	if sock := m.socket(""); filepath.Dir(sock) != first && filepath.Dir(sock) != strings.TrimSpace(string(short)) {
		t.Errorf("the socket %s is neither in the runtime directory %s nor in the one it names (%q)", sock, first, short)
	}

	stopDaemons(t, m.tmp)
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	remade := savedDir(t, m.must("call", "fake.image"))
	if remade == first {
		t.Errorf("after %s was removed, %s was made again at the same, predictable, path", first, remade)
	}
	if st, err := os.Lstat(remade); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the new runtime directory: %v, %v; want mode 0700", st, err)
	}

	stopDaemons(t, m.tmp)
	if err := os.Rename(remade, remade+".gone"); err != nil {
		t.Fatal(err)
	}
	mkdir(t, remade)
	other.Chown(t, remade)
	r := m.run(nil, "call", "fake.image")
	if r.code != 0 {
		t.Fatalf("after the runtime directory was replaced: exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcp: warning: ") || !strings.Contains(lines[0], remade+" belongs to another user") {
		t.Errorf("after the runtime directory was replaced, stderr should be one warning naming it, got %q", r.stderr)
	}
	fresh := savedDir(t, r.stdout)
	if fresh == remade {
		t.Errorf("saved in the other user's %s", remade)
	}
	if again := savedDir(t, m.must("call", "fake.image")); again != fresh {
		t.Errorf("the next call saved in %s, not in the new runtime directory %s", again, fresh)
	}
}

var savedLine = regexp.MustCompile(`\[image saved to (\S+) \(`)

// savedPath is the file an output line says the image was saved to.
func savedPath(t *testing.T, stdout string) string {
	t.Helper()
	match := savedLine.FindStringSubmatch(stdout)
	if match == nil {
		t.Fatalf("no saved image in %q", stdout)
	}
	if _, err := os.Stat(match[1]); err != nil {
		t.Fatal(err)
	}
	return match[1]
}

func savedDir(t *testing.T, stdout string) string {
	t.Helper()
	return filepath.Dir(savedPath(t, stdout))
}

// under says whether path is dir or in it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}
