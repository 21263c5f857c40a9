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
// Windows) a file's directory is watched, which also sees it appear.
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
	watched := map[string]bool{}
	// An event counts when it is about a file of the list, or about an
	// entry of a directory of the list; other entries of the directory a
	// listed file is in (a home directory's) do not.
	var files, dirs, missing map[string]bool
	add := func(cfg *Config) {
		files, dirs, missing = map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, p := range cfg.Watch {
			at := p
			st, err := os.Stat(p)
			switch {
			case err == nil && st.IsDir():
				dirs[p] = true
			case byFile && err != nil:
				files[p], missing[p] = true, true
				continue
			case byFile:
				files[p] = true
			default:
				files[p], at = true, filepath.Dir(p)
			}
			if !watched[at] && w.Add(at) == nil {
				watched[at] = true
			}
		}
		if listed != nil {
			listed(w.WatchList())
		}
	}
	d.mu.Lock()
	add(d.cfg)
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
			if ev.Op == fsnotify.Chmod || !files[ev.Name] && !dirs[ev.Name] && !dirs[filepath.Dir(ev.Name)] {
				continue
			}
			if ev.Op.Has(fsnotify.Remove) || ev.Op.Has(fsnotify.Rename) {
				delete(watched, ev.Name) // a file watched itself is watched again after the reload
			}
			debounce = time.After(100 * time.Millisecond)
		case <-poll:
			for p := range missing {
				if _, err := os.Stat(p); err == nil {
					debounce = time.After(0)
				}
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
			add(cfg)
		}
	}
}
