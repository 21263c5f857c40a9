//go:build windows

package session

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv/tempdir"
)

// cacheDir points the user's cache directory (%LocalAppData%) at a new
// directory of the test's.
func cacheDir(t *testing.T) string {
	t.Helper()
	dir := tempdir.New(t, "session")
	t.Setenv("LocalAppData", dir)
	return dir
}

func newState() *State {
	return &State{ID: NewID(), Root: `C:\r`, Agent: "a", Started: time.Now().UTC(),
		Surface: &catalog.Surface{Mode: catalog.ModeCLI}}
}

// On Windows, where the state file reads as mode 0666 and its directory
// as 0777, a session's state is saved, read, listed and removed: the
// directory and the file are checked by their owner and access list.
func TestState_windows(t *testing.T) {
	base := cacheDir(t)
	st := newState()
	if err := Save(st); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if dir, err := Dir(); err != nil || !strings.HasPrefix(dir, base) {
		t.Fatalf("Dir = %s, %v; want a directory in %s", dir, err, base)
	}
	got, err := Load(st.ID)
	if err != nil || !got.Same(st) {
		t.Fatalf("Load = %+v, %v; want the state saved", got, err)
	}
	if list, err := List(); err != nil || len(list) != 1 || list[0].ID != st.ID {
		t.Fatalf("List = %v, %v; want the one session", list, err)
	}
	if err := Remove(st.ID); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := Load(st.ID); err == nil || !strings.Contains(err.Error(), "is not running") {
		t.Errorf("Load after Remove = %v; want not running", err)
	}
}

// A state file whose access list lets another user in is refused, by its
// access list, and List passes it over.
func TestState_windowsOpenToOthers(t *testing.T) {
	cacheDir(t)
	st := newState()
	if err := Save(st); err != nil {
		t.Fatal(err)
	}
	dir, _ := Dir()
	p := filepath.Join(dir, st.ID+".json")
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(p, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		t.Fatal(err)
	}
	_, err = Load(st.ID)
	if err == nil || !strings.Contains(err.Error(), "the state file is not private to this user") ||
		!strings.Contains(err.Error(), "is writable by Everyone (S-1-1-0; icacls ") {
		t.Errorf("Load(a state file everyone may use) = %v; want it refused by its access list", err)
	}
	if list, err := List(); err != nil || len(list) != 0 {
		t.Errorf("List = %v, %v; want the state passed over", list, err)
	}
}
