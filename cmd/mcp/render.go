package main

import (
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/output"
)

// writeJSON prints v as JSON on stdout: exact with --json, made safe for a
// terminal otherwise (still JSON, with the same values).
func (a *app) writeJSON(v any) error {
	if a.globals != nil && a.globals.JSON {
		return output.WriteJSON(a.out, v)
	}
	return output.WriteJSON(a.stdout, v)
}

// renderResult prints a tool result (output.Result); --json prints the
// whole result. Text output over --max-output is cut and saved whole to a
// file.
func renderResult(a *app, target string, res *catalog.Result) error {
	if a.globals.JSON {
		return a.writeJSON(res.Raw)
	}
	out, err := output.Result(target, res)
	if err != nil {
		return err
	}
	return output.WriteBudgeted(a.stdout, a.stderr, target, out, int(a.globals.MaxOutput))
}
