//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

// An agent narrows a session, so an agent file another user could change
// widens it: in a checkout whose agents/ others may write (umask 000), an
// agent file another user put there with include ["*"] is refused, and
// neither check, list nor a session of that agent starts with more than
// it had.
func TestPlantedAgentFile(t *testing.T) {
	m := newMuxEnv(t)
	p := localuser.New(t)
	agents := filepath.Join(m.root, "agents")
	if err := os.Chmod(agents, 0o777); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(agents, "narrow.yaml")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	p.WriteFile(t, file, "mcp:\n  servers:\n    fake:\n      include: [\"*\"]\n")

	want := "agents/narrow.yaml: is owned by " + p.Owner() + ", not by you or root"
	r := m.run(nil, "check", "--agent", "narrow")
	if r.code != exit.Config || !strings.Contains(r.stderr, "mcp: error: ") || !strings.Contains(r.stderr+r.stdout, want) {
		t.Errorf("check --agent narrow: exit %d\nstdout: %s\nstderr: %s\nwant exit %d and %q", r.code, r.stdout, r.stderr, exit.Config, want)
	}
	r = m.run(nil, "list", "--agent", "narrow")
	if r.code != exit.Config || r.stdout != "" || !strings.Contains(r.stderr, want) {
		t.Errorf("list --agent narrow: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = m.run(nil, "session", "start", "--agent", "narrow")
	if r.code != exit.Config || r.stdout != "" || !strings.Contains(r.stderr, want) {
		t.Errorf("session start --agent narrow: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// The user's own file in that directory could have been swapped too.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, "mcp:\n  servers:\n    fake:\n      include: [echo]\n")
	want = "agents/narrow.yaml: is in " + agents + ", which is writable by group or others (chmod go-w fixes that)"
	if r = m.run(nil, "check", "--agent", "narrow"); r.code != exit.Config || !strings.Contains(r.stderr+r.stdout, want) {
		t.Errorf("own file, check --agent narrow: exit %d\nstdout: %s\nstderr: %s\nwant %q", r.code, r.stdout, r.stderr, want)
	}
}

// fifoOpened has a writer wait on the FIFO at path; it reports whether
// anyone opened the FIFO for reading before the test ends.
func fifoOpened(t *testing.T, path string) func() bool {
	t.Helper()
	opened := make(chan struct{})
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0) // blocks until a reader opens it
		if err == nil {
			close(opened)
			f.Close()
		}
	}()
	t.Cleanup(func() {
		// Let the writer go: a reader of the test's own.
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			time.Sleep(50 * time.Millisecond)
			f.Close()
		}
	})
	return func() bool {
		select {
		case <-opened:
			return true
		case <-time.After(300 * time.Millisecond):
			return false
		}
	}
}

// A package.json another user put above the working directory is passed
// over with one warning without being opened: a FIFO (whose writer
// would be let through), a symlink to a device, to a file only root may
// read, or to a FIFO (which shows that no symlink of theirs is followed).
// The command ends at once.
func TestPlantedPackageJSONNotOpened(t *testing.T) {
	for _, shape := range []string{"fifo", "link to a fifo", "link to /dev/null", "link to /etc/shadow"} {
		t.Run(shape, func(t *testing.T) {
			s := newSharedDir(t, 0o777|os.ModeSticky)
			p := localuser.New(t)
			pkg := filepath.Join(s.shared, "package.json")
			fifo := filepath.Join(filepath.Dir(s.shared), "fifo")
			problem := "is a symlink owned by " + p.Owner() + ", not by you or root"
			var opened func() bool
			switch shape {
			case "fifo":
				if err := syscall.Mkfifo(pkg, 0o644); err != nil {
					t.Fatal(err)
				}
				opened = fifoOpened(t, pkg)
				problem = "is not a regular file (a named pipe)"
			case "link to a fifo":
				if err := syscall.Mkfifo(fifo, 0o644); err != nil {
					t.Fatal(err)
				}
				opened = fifoOpened(t, fifo)
				mustSymlink(t, fifo, pkg)
			case "link to /dev/null":
				mustSymlink(t, "/dev/null", pkg)
			case "link to /etc/shadow":
				mustSymlink(t, "/etc/shadow", pkg)
			}
			p.Chown(t, pkg)
			start := time.Now()
			r := s.in(s.work, "list")
			warning := "mcp: warning: " + pkg + ": passed over: it " + problem + "\n"
			if r.code != 0 || r.stdout != "mine  untrusted\n" || !strings.HasPrefix(r.stderr, warning) || strings.Count(r.stderr, "mcp: warning:") != 1 {
				t.Errorf("list: exit %d\nstdout: %s\nstderr: %s\nwant stderr %q", r.code, r.stdout, r.stderr, warning)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("list took %v", d)
			}
			if opened != nil && opened() {
				t.Errorf("the %s was opened", shape)
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
