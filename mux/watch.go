package mux

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchFiles says how a listed file is watched. Where fsnotify's backend
// is kqueue (macOS, the BSDs), watching a directory opens every entry of
// it, and a listed file's directory can be the home directory
// (~/.claude.json): there a file that exists is watched itself, and one
// that does not yet is looked for every pollEvery. Elsewhere (inotify,
// Windows) a file's directory is watched, which also sees it appear, and
// on Windows sees a file renamed over it: fsnotify's watch of a file
// there is its directory's, filtered by the file's name, and it drops the
// rename's new name when the old one was not watched.
var watchFiles = runtime.GOOS == "darwin" || strings.HasSuffix(runtime.GOOS, "bsd") || runtime.GOOS == "dragonfly"

const pollEvery = 2 * time.Second

// watch reloads the configuration when a watched file changes. byFile is
// watchFiles, and listed, when set, is told what is watched after each
// change, both for tests.
func (d *Multiplexer) watch(ctx context.Context, byFile bool, listed func([]string)) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		d.log.Warn("cannot watch the configuration", "err", err)
		return
	}
	defer w.Close()
	set := &watchSet{w: w, byFile: byFile, listed: listed, watched: map[string]bool{}}
	d.mu.Lock()
	set.add(d.cfg)
	d.mu.Unlock()
	var poll <-chan time.Time
	if byFile {
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		poll = t.C
	}
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.stopped:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if set.counts(ev) {
				debounce = time.After(100 * time.Millisecond)
			}
		case <-poll:
			if set.appeared() {
				debounce = time.After(0)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			d.log.Warn("watching the configuration", "err", err)
		case <-debounce:
			debounce = nil
			cfg := d.reload()
			if cfg == nil {
				d.mu.Lock()
				cfg = d.cfg
				d.mu.Unlock()
			}
			set.add(cfg)
		}
	}
}

// watchSet is what watch watches of a configuration's list of files.
// An event counts when it is about a file of the list, or about an entry
// of a directory of the list; other entries of the directory a listed
// file is in (a home directory's) do not. files and dirs are keyed by
// nameKey.
type watchSet struct {
	w       *fsnotify.Watcher
	byFile  bool
	listed  func([]string)
	watched map[string]bool // what w has been given
	files   map[string]bool
	dirs    map[string]bool
	missing map[string]bool // listed files not there, looked for in byFile mode
}

// add watches what cfg lists: a directory itself; a file itself in
// byFile mode (a missing one is looked for instead), else its directory.
func (s *watchSet) add(cfg *Config) {
	s.files, s.dirs, s.missing = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range cfg.Watch {
		at := p
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			s.dirs[nameKey(p)] = true
		case s.byFile && err != nil:
			s.files[nameKey(p)], s.missing[p] = true, true
			continue
		case s.byFile:
			s.files[nameKey(p)] = true
		default:
			s.files[nameKey(p)], at = true, filepath.Dir(p)
		}
		if !s.watched[at] && s.w.Add(at) == nil {
			s.watched[at] = true
		}
	}
	if s.listed != nil {
		s.listed(s.w.WatchList())
	}
}

// counts says whether ev calls for a reload. A file watched itself that
// is removed or renamed is watched again by the reload's add.
func (s *watchSet) counts(ev fsnotify.Event) bool {
	name := nameKey(ev.Name)
	if ev.Op == fsnotify.Chmod || !s.files[name] && !s.dirs[name] && !s.dirs[filepath.Dir(name)] {
		return false
	}
	if ev.Op.Has(fsnotify.Remove) || ev.Op.Has(fsnotify.Rename) {
		delete(s.watched, ev.Name)
	}
	return true
}

// nameKey is how watchSet keys a path. Windows's file names are
// case-insensitive and an event there names a file as its directory
// spells it (.Claude.json), which may not be how it was listed
// (~/.claude.json).
func nameKey(p string) string {
	if runtime.GOOS == "windows" {
		return strings.ToLower(p)
	}
	return p
}

// appeared says whether a listed file that was missing is there now.
func (s *watchSet) appeared() bool {
	for p := range s.missing {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
