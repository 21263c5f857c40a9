package mux

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watch reloads the configuration when a watched file changes.
func (d *Multiplexer) watch(ctx context.Context) {
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
	var files, dirs map[string]bool
	add := func(cfg *Config) {
		files, dirs = map[string]bool{}, map[string]bool{}
		for _, p := range cfg.Watch {
			dir := p
			if st, err := os.Stat(p); err != nil || !st.IsDir() {
				dir = filepath.Dir(p)
				files[p] = true
			} else {
				dirs[p] = true
			}
			if !watched[dir] && w.Add(dir) == nil {
				watched[dir] = true
			}
		}
	}
	d.mu.Lock()
	add(d.cfg)
	d.mu.Unlock()
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
			debounce = time.After(100 * time.Millisecond)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			d.log.Warn("watching the configuration", "err", err)
		case <-debounce:
			debounce = nil
			if cfg := d.reload(); cfg != nil {
				add(cfg)
			}
		}
	}
}
