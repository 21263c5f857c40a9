package catalog

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
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
// signature, its description and a line for each argument, with every
// enum literal, and under an argument that is an object (or an array of
// objects, or a union with objects) a line for each of its properties.
func (t Tool) WriteText(w io.Writer) {
	fmt.Fprintln(w, t.Server+"."+t.Signature())
	if d := indentLines(t.Description, "  "); d != "" {
		fmt.Fprintln(w, "  "+d)
	}
	for _, p := range Params(t.InputSchema) {
		writeParam(w, p, "  ", 0)
	}
}

// maxNesting is how many levels of properties under an argument the
// detailed view shows.
const maxNesting = 4

// writeParam writes p at indent, a description of several lines indented
// under it, then the properties of the objects it holds one level deeper.
func writeParam(w io.Writer, p Param, indent string, level int) {
	p.Type = p.Shape
	line := indent + p.Text()
	if d := indentLines(p.Description, indent+"    "); d != "" {
		line += "  " + d
	}
	fmt.Fprintln(w, line)
	if level >= maxNesting {
		return
	}
	objs := p.prop.objects(nil, false)
	union := len(objs) > 1 || slices.ContainsFunc(objs, func(o object) bool { return o.branch })
	for _, o := range objs {
		in := indent + "  "
		if union { // each object of a union under a line of its own
			fmt.Fprintln(w, in+o.p.oneType("object", false, false)+":")
			in += "  "
		}
		for _, name := range o.p.names() {
			writeParam(w, o.p.param(name, o.p.needs(name)), in, level+1)
		}
	}
}

// indentLines is text without the space around it, its lines after the
// first indented by indent and without trailing space.
func indentLines(text, indent string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if i > 0 && l != "" {
			l = indent + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
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
