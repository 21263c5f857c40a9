package mux

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// ConnWarnings gathers what a multiplexer's connections leave out (a tool
// not offered, and why: upstream.Options.OnWarning), so that the clients
// whose requests list a server's tools see it as a process connecting on
// its own would.
type ConnWarnings struct {
	mu    sync.Mutex
	lines map[string][]string // by server id, each line once
}

// Add records a warning; it names its server first ("server.tool ...").
func (w *ConnWarnings) Add(line string) {
	server, _, _ := strings.Cut(line, ".")
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lines == nil {
		w.lines = map[string][]string{}
	}
	if !slices.Contains(w.lines[server], line) {
		w.lines[server] = append(w.lines[server], line)
	}
}

// For is the warnings of the server a request names, or of every server
// for one that names none (list, search, run).
func (w *ConnWarnings) For(server string) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if server != "" {
		return slices.Clone(w.lines[server])
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(w.lines)) {
		out = append(out, w.lines[id]...)
	}
	return out
}
