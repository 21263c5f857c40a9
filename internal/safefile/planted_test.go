//go:build linux

package safefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

// What another user planted in a sticky directory is passed over without
// being opened: their file, their symlink to a device or to a file only
// root may read, and their FIFO, which would block whoever opened it.
func TestRead_Planted(t *testing.T) {
	s := localuser.New(t)
	shared := localuser.Shared(t, 0o777|os.ModeSticky)
	s.WriteFile(t, filepath.Join(shared, "file"), "{}")
	s.Sh(t, shared, "ln -s /dev/null null; ln -s /etc/shadow shadow; mkfifo fifo")
	for name, want := range map[string]struct {
		kind    Kind
		problem string
	}{
		"file":   {Unsafe, "is owned by " + s.Owner() + ", not by you or root"},
		"null":   {Unsafe, "is a symlink owned by " + s.Owner() + ", not by you or root"},
		"shadow": {Unsafe, "is a symlink owned by " + s.Owner() + ", not by you or root"},
		"fifo":   {NotRegular, "is not a regular file (a named pipe)"},
	} {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := Read(filepath.Join(shared, name), 1<<20); done <- err }()
			select {
			case err := <-done:
				wantProblem(t, err, want.kind, want.problem)
			case <-time.After(5 * time.Second):
				t.Fatal("Read blocked")
			}
		})
	}
}

// The user's own file under a directory another user owns could be
// renamed away and replaced: it is refused.
func TestRead_UnderAnotherUsersDir(t *testing.T) {
	s := localuser.New(t)
	theirs := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(theirs, "f")
	write(t, path, "{}", 0o600)
	s.Chown(t, theirs)
	_, err := Read(path, 10)
	wantProblem(t, err, Unsafe, "is in "+theirs+", which is owned by "+s.Owner()+", not by you or root")
	if why := CheckDir(theirs); why != "is in "+theirs+", which is owned by "+s.Owner()+", not by you or root" {
		t.Errorf("CheckDir = %q", why)
	}
	// Own: root's file is not the user's own only when the user is not
	// root; another user's always fails.
	mine := filepath.Join(t.TempDir(), "mine")
	write(t, mine, "{}", 0o600)
	s.Chown(t, mine)
	_, err = Options{Own: true}.Read(mine)
	wantProblem(t, err, Unsafe, "is owned by "+s.Owner()+", not by you")
}
