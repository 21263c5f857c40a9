package catalog

import (
	"sort"
	"strings"

	"github.com/mcpsh/mcp/internal/words"
)

// Tool names as callers spell them. Servers write tool names with "-"
// (query-docs) or "_" (query_docs), and a caller cannot be expected to
// remember which: the two match each other where that names one tool of
// the surface. A name that names none gets suggestions, and they are
// taken from the surface's own tools only, so that nothing beyond the
// surface is learned from them.

// maxSuggestions bounds the tools one error suggests.
const maxSuggestions = 3

// toolKey is a tool name with "-" read as "_".
func toolKey(name string) string { return strings.ReplaceAll(name, "-", "_") }

// MatchTool is the one of names (the surface's tools) that name means:
// name itself, else the only one that is the same but for "-" and "_".
// ok is false when none is, or when several are.
func MatchTool(name string, names []string) (string, bool) {
	found, n := "", 0
	for _, c := range names {
		if c == name {
			return c, true
		}
		if toolKey(c) == toolKey(name) {
			found, n = c, n+1
		}
	}
	return found, n == 1
}

// SuggestTools are the names (the surface's tools) that a caller who wrote
// name most likely meant, best first, at most three: those the same but
// for "-" and "_" (when several are, none is chosen), those that name
// begins with up to a "-" (a program that wrote list-connections as an
// expression reads list), and those a typo or two away.
func SuggestTools(name string, names []string) []string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var out []string
	add := func(c string) {
		for _, have := range out {
			if have == c {
				return
			}
		}
		out = append(out, c)
	}
	key := strings.ToLower(toolKey(name))
	for _, c := range sorted {
		if c != name && toolKey(c) == toolKey(name) {
			add(c)
		}
	}
	for _, c := range sorted {
		if name != "" && strings.HasPrefix(c, name+"-") {
			add(c)
		}
	}
	type near struct {
		name string
		dist int
	}
	var close []near
	for _, c := range sorted {
		// At most two edits, and fewer than the name has characters.
		d := words.Distance(key, strings.ToLower(toolKey(c)))
		if d > 0 && d <= 2 && d < len([]rune(name)) {
			close = append(close, near{c, d})
		}
	}
	sort.SliceStable(close, func(i, j int) bool { return close[i].dist < close[j].dist })
	for _, c := range close {
		add(c.name)
	}
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}

// ResolveTool is the authorized tool of server that name means, among
// names (what the server lists, or what the surface names): name itself,
// or the only one that is the same but for "-" and "_". Otherwise it is a
// *NotAvailableError that suggests the authorized names a caller most
// likely meant.
func (s *Surface) ResolveTool(server, name string, names []string) (string, error) {
	srv, ok := s.Server(server)
	if !ok {
		return "", s.NotAvailable(server, name)
	}
	authorized := make([]string, 0, len(names))
	for _, n := range names {
		if srv.Allowed(n) {
			authorized = append(authorized, n)
		}
	}
	if found, ok := MatchTool(name, authorized); ok {
		return found, nil
	}
	na := s.NotAvailable(server, name)
	for _, c := range SuggestTools(name, authorized) {
		na.Suggest = append(na.Suggest, srv.ID+"."+c)
	}
	return "", na
}

// Names are the tools' names, in order.
func Names(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}
