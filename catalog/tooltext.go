package catalog

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Line is a tool in one line, as `mcp list SERVER` and `mcp search` print
// it: SERVER.signature — summary.
func (t Tool) Line() string {
	line := t.Server + "." + t.Signature()
	if s := t.Summary(120); s != "" {
		line += " — " + s
	}
	return line
}

// WriteText writes a tool as `mcp list SERVER.TOOL` prints it: its
// signature, its description and a line for each argument.
func (t Tool) WriteText(w io.Writer) {
	fmt.Fprintln(w, t.Server+"."+t.Signature())
	if d := strings.TrimSpace(t.Description); d != "" {
		fmt.Fprintln(w, "  "+strings.ReplaceAll(d, "\n", "\n  "))
	}
	for _, p := range Params(t.InputSchema) {
		p.Type = p.Shape
		line := "  " + p.Text()
		if p.Description != "" {
			line += "  " + p.Description
		}
		fmt.Fprintln(w, line)
	}
}

// WithoutRaw is a tool as --json prints it: the model without the raw
// object the server sent.
func (t Tool) WithoutRaw() Tool {
	t.Raw = nil
	return t
}

// WithoutRaw is each of tools without its raw object.
func WithoutRaw(tools []Tool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = t.WithoutRaw()
	}
	return out
}

// Schema is the tool's input schema, {} when it has none.
func (t Tool) Schema() json.RawMessage {
	if len(t.InputSchema) == 0 {
		return json.RawMessage("{}")
	}
	return t.InputSchema
}
