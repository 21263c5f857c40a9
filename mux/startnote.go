package mux

import (
	"fmt"
	"sync"

	"github.com/mcpsh/mcp/manifests"
)

// startNotes are, by canonical server id, the line to say when a server of
// the user's configuration that came from an editor's file (another
// program's, such as ~/.claude.json) starts: such a server starts without
// `mcp trust` (the file is the user's own), so where it came from is said
// once. Servers of a recipe and of pi's own files have none.
func startNotes(r *manifests.Recipe) map[string]string {
	if r == nil || len(r.Editors) == 0 {
		return nil
	}
	notes := make(map[string]string, len(r.Editors))
	for id, file := range r.Editors {
		ep, ok := r.Endpoints[id]
		if !ok {
			continue
		}
		verb := "starting"
		if ep.Command == "" {
			verb = "connecting to"
		}
		notes[id] = fmt.Sprintf("%s %s from %s", verb, ep.ID, file)
	}
	return notes
}

// noteOnce is what hears a request waiting for server to start: it says
// the server's note, the first time in this process, to say.
func noteOnce(notes map[string]string, say func(string)) func(server string) {
	if len(notes) == 0 || say == nil {
		return nil
	}
	var mu sync.Mutex
	said := map[string]bool{}
	return func(server string) {
		id := manifests.CanonicalID(server)
		mu.Lock()
		defer mu.Unlock()
		if line, ok := notes[id]; ok && !said[id] {
			said[id] = true
			say(line)
		}
	}
}

// withNote is connecting (nil or not) that first says note's line.
func withNote(connecting func(string) func(), note func(string)) func(string) func() {
	if note == nil {
		return connecting
	}
	return func(server string) func() {
		note(server)
		if connecting == nil {
			return func() {}
		}
		return connecting(server)
	}
}
