package manifests

import (
	"fmt"
	"strconv"

	"github.com/mcpsh/mcp/internal/words"
)

// Label names a file read for the user's configuration: its path, the
// section read and the program it is of.
func (f Source) Label() string {
	name := f.File
	if f.Section != "" {
		name += " " + f.Section
	}
	if f.Program != "" {
		name += " (" + f.Program + ")"
	}
	return name
}

// Outcome says what came of a file: how many servers, how many
// entries skipped, or why it was skipped whole.
func (f Source) Outcome() string {
	if f.Skipped != "" {
		return "skipped: " + f.Skipped
	}
	s := strconv.Itoa(f.Servers) + " " + words.Plural(f.Servers, "server", "servers")
	if f.SkippedEntries > 0 {
		s += fmt.Sprintf(", %d %s skipped", f.SkippedEntries, words.Plural(f.SkippedEntries, "entry", "entries"))
	}
	return s
}
