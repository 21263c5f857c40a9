package mux

import (
	"slices"
	"strings"
	"sync"

	"github.com/mcpsh/mcp/catalog"
)

// ConnWarnings gathers what a multiplexer's connections leave out (a tool
// not offered, and why; a request for input not relayed:
// upstream.Options.OnWarning), so that the clients whose requests list a
// server's tools see it as a process connecting on its own would.
type ConnWarnings struct {
	mu    sync.Mutex
	lines []connWarning // in the order they came, each line once
}

// connWarning is one line, with the server it names first, and the tool
// when it is about one ("server.tool ..."), not the server ("server: ...").
type connWarning struct {
	server, tool, line string
}

// Add records a warning; it names its server first, then either the tool
// ("server.tool ...") or a colon ("server: ...").
func (w *ConnWarnings) Add(line string) {
	cw := connWarning{line: line}
	if i := strings.IndexAny(line, ".:"); i > 0 {
		cw.server = line[:i]
		if line[i] == '.' {
			cw.tool, _, _ = strings.Cut(line[i+1:], " ")
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.lines, cw) {
		w.lines = append(w.lines, cw)
	}
}

// For is the warnings of the server a request names, or of every server
// for one that names none (list, search, run), sorted by server: those
// about a tool the surface authorizes (a warning about any other tool
// would tell a session that the tool exists), and with serverWide those
// about one of its servers as a whole, which may name the host's paths.
func (w *ConnWarnings) For(server string, s *catalog.Surface, serverWide bool) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	lines := slices.Clone(w.lines)
	w.mu.Unlock()
	slices.SortStableFunc(lines, func(a, b connWarning) int { return strings.Compare(a.server, b.server) })
	var out []string
	for _, cw := range lines {
		switch {
		case cw.server == "", server != "" && cw.server != server:
		case cw.tool != "" && s.Allowed(cw.server, cw.tool), cw.tool == "" && serverWide && inSurface(s, cw.server):
			out = append(out, cw.line)
		}
	}
	return out
}

func inSurface(s *catalog.Surface, server string) bool {
	_, ok := s.Server(server)
	return ok
}
