package catalog

import (
	"fmt"

	"github.com/mcpsh/mcp/internal/words"
)

// BoundNote says how many of the surface's servers are required, which
// session start has bound, and how many tools they brought.
func (s *Surface) BoundNote(tools int) string {
	required := 0
	for _, srv := range s.Servers {
		if srv.Required {
			required++
		}
	}
	if required == 0 {
		return "none required"
	}
	return fmt.Sprintf("%d required %s bound with %d %s",
		required, words.Plural(required, "server", "servers"), tools, words.Plural(tools, "tool", "tools"))
}
