package mux

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Windows names are case-insensitive: a listed file the directory spells
// otherwise (.Claude.json for ~/.claude.json) is the file read, and its
// events, which name it as the directory does, count; another file's do
// not.
func TestWatch_windowsCase(t *testing.T) {
	home := winDir(t)
	onDisk, listed := filepath.Join(home, ".Claude.json"), filepath.Join(home, ".claude.json")
	if err := os.WriteFile(onDisk, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	set := &watchSet{w: w, watched: map[string]bool{}}
	set.add(&Config{Watch: []string{listed}})
	counted := func(change func() error) []fsnotify.Event {
		t.Helper()
		if err := change(); err != nil {
			t.Fatal(err)
		}
		var seen []fsnotify.Event
		for deadline := time.After(2 * time.Second); ; {
			select {
			case ev := <-w.Events:
				seen = append(seen, ev)
				if set.counts(ev) {
					return nil
				}
			case <-deadline:
				return seen
			}
		}
	}
	if seen := counted(func() error { return os.WriteFile(filepath.Join(home, ".bash_history"), nil, 0o600) }); seen == nil {
		t.Error("a file mcp does not read counted")
	}
	if seen := counted(func() error { return os.WriteFile(listed, []byte("{}\n"), 0o600) }); seen != nil {
		t.Errorf("writing %s (on disk %s) did not count; events: %v", listed, filepath.Base(onDisk), seen)
	}
	replace := func() error {
		if err := os.WriteFile(listed+".new", []byte("{ }"), 0o600); err != nil {
			return err
		}
		return os.Rename(listed+".new", onDisk)
	}
	if seen := counted(replace); seen != nil {
		t.Errorf("replacing %s did not count; events: %v", onDisk, seen)
	}
}
