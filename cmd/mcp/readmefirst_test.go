package main

import (
	"strings"
	"testing"
)

// The README's first screen, before Install, says in a sentence each what
// a recipe, the package boundary, an agent file and a session are, and
// gets someone whose editor runs MCP servers to a narrowed agent in three
// commands: mcp init, mcp trust, mcp session start.
func TestDocs_readmeFirstScreen(t *testing.T) {
	first, _, ok := strings.Cut(pageText(t, "README.md"), "\n## Install\n")
	if !ok {
		t.Fatal("the README has no Install section")
	}
	for _, term := range []string{"**recipe**", "**package boundary**", "**agent file**", "**session**", "`pi.mcp`", "`pi` is"} {
		if !strings.Contains(first, term) {
			t.Errorf("the README's first screen does not define %s", term)
		}
	}
	_, block, ok := strings.Cut(first, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if !ok || len(lines) != 3 || !strings.HasPrefix(lines[0], "mcp init ") || !strings.HasPrefix(lines[1], "mcp trust ") ||
		!strings.Contains(lines[2], "mcp session start ") {
		t.Errorf("the README's first screen does not give mcp init, mcp trust and mcp session start: %q", lines)
	}
	if n := strings.Count(first, "\n"); n > 60 {
		t.Errorf("the first screen is %d lines, more than a screen", n)
	}
}
