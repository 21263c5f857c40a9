package toolsmode

import (
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
)

// What the server says of a call it refuses, in the words mcp call uses
// for the same refusal, less what only a shell has: a name it does not
// list gets the listed names a client most likely meant, and arguments it
// refuses get the tool's signature.

// notAvailable is the one answer to a name outside the active set. Its
// suggestions are drawn from the active set alone, so a name the surface
// hides, or a deferred one not loaded yet, is never suggested, and the
// answer to it is the answer to a name that does not exist.
func (s *Server) notAvailable(name string) *mcp.CallToolResult {
	na := &catalog.NotAvailableError{Server: displayName(name), Listed: true, Suggest: s.suggest(name)}
	msg := na.Error()
	if s.isActive(SearchTool) {
		msg += "; " + SearchTool + " finds more tools"
	}
	return toolError(msg)
}

// suggest are the active names a client that called name most likely
// meant, at most three: first the tools of that upstream name (read_file,
// or fs.read_file, for fs__read_file), then the names a typo or two away.
func (s *Server) suggest(name string) []string {
	active := slices.DeleteFunc(s.Active(), func(n string) bool { return n == name })
	var out []string
	s.activating.Lock()
	for _, n := range active {
		if e, ok := s.byName[n]; ok {
			if _, same := catalog.MatchTool(name, []string{e.tool.Name, e.tool.ID()}); same {
				out = append(out, n)
			}
		}
	}
	s.activating.Unlock()
	for _, n := range catalog.SuggestTools(name, active) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out[:min(len(out), maxSuggestions)]
}

// maxSuggestions bounds the names one answer suggests, as mcp call does.
const maxSuggestions = 3

// argsError is the answer to arguments a tool's input schema refuses: the
// problem, and the signature of the tool under the name it is called by
// here.
func argsError(name string, schema json.RawMessage, err error) *mcp.CallToolResult {
	sig := catalog.Tool{Name: name, InputSchema: schema}.Signature()
	return toolError(clip.Line(name + ": " + err.Error() + "; the tool's signature is " + sig))
}
