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
// for one that names none (list, search, run), about the tools allowed
// says the surface authorizes: a warning about any other tool would tell
// a session that the tool exists.
func (w *ConnWarnings) For(server string, allowed func(server, tool string) bool) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := []string{server}
	if server == "" {
		ids = slices.Sorted(maps.Keys(w.lines))
	}
	var out []string
	for _, id := range ids {
		for _, line := range w.lines[id] {
			tool, _, _ := strings.Cut(strings.TrimPrefix(line, id+"."), " ")
			if allowed(id, tool) {
				out = append(out, line)
			}
		}
	}
	return out
}
