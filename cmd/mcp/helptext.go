package main

// The syntax that call's and run's help carry, and a session's guide with
// them: one wording in every place it is shown.

import (
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/guide"
)

// exitCodesHelp is exitCodes as one paragraph.
var exitCodesHelp = "Exit codes: " + strings.Join(exit.Meanings, ", ") + "."

// runExitCodesHelp is the exit codes of mcp run (docs/run.md).
const runExitCodesHelp = `Exit codes: 0 ok, 1 an uncaught tool error, 2 a program error or a call or output limit, 3 a tool outside the surface, 4 the time limit or an unavailable server, 5 invalid configuration.`

// Help is the detail of mcp call --help.
func (c *callCmd) Help() string {
	return "Arguments, after SERVER.TOOL:\n\n" + guide.Arguments + "\n\n" +
		"Text is printed as it is, structured content as JSON, images and blobs are saved to files whose paths are printed; --json prints the whole result.\n\n" +
		exitCodesHelp
}

// Help is the detail of mcp run --help.
func (c *runCmd) Help() string {
	return "Each server is an object whose methods are its authorized tools; a call resolves to the tool's structured content, else its text (mcp.json(text) is the value of text that holds JSON). The program's value (what it returns, or its last expression) is printed as JSON.\n\n" +
		guide.RunNames + "\n\n" +
		"A tool error rejects with an Error whose isToolError is true.\n\n" + runExitCodesHelp
}
