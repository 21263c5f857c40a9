package mux

import (
	"strings"
	"testing"

	"github.com/mcpsh/mcp/manifests"
)

// A server from an editor's file is named with its file once: started
// when it is a command, connected to when it is a URL; servers from no
// editor's file are not named.
func TestStartNotes(t *testing.T) {
	r := &manifests.Recipe{User: true,
		Endpoints: map[string]manifests.Endpoint{
			"memory": {ID: "memory", Command: "npx"},
			"notes":  {ID: "notes", URL: "https://notes.example/mcp"},
			"own":    {ID: "own", Command: "own"},
		},
		Editors: map[string]string{"memory": "~/.claude.json", "notes": "~/.cursor/mcp.json"},
	}
	var said []string
	note := noteOnce(startNotes(r), func(line string) { said = append(said, line) })
	for _, server := range []string{"memory", "notes", "own", "memory", "notes"} {
		withNote(nil, note)(server)()
	}
	want := "starting memory from ~/.claude.json\nconnecting to notes from ~/.cursor/mcp.json"
	if got := strings.Join(said, "\n"); got != want {
		t.Errorf("said\n%s\nwant\n%s", got, want)
	}
	if noteOnce(startNotes(&manifests.Recipe{}), func(string) {}) != nil {
		t.Error("a configuration without editor files has a note")
	}
}
