package catalog

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/internal/clip"
)

// Param is one top-level property of a tool's input schema.
type Param struct {
	Name        string
	Types       []string // JSON Schema types, in the order the schema lists them; empty when unknown
	ItemTypes   []string // for arrays: the items' types
	Required    bool
	Description string
}

type schemaNode struct {
	Type        json.RawMessage       `json:"type"`
	Description string                `json:"description"`
	Items       *schemaNode           `json:"items"`
	AnyOf       []schemaNode          `json:"anyOf"`
	OneOf       []schemaNode          `json:"oneOf"`
	Enum        []json.RawMessage     `json:"enum"`
	Properties  map[string]schemaNode `json:"properties"`
	Required    []string              `json:"required"`
}

func (n *schemaNode) types() []string {
	var out []string
	var one string
	var many []string
	switch {
	case json.Unmarshal(n.Type, &one) == nil && one != "":
		out = append(out, one)
	case json.Unmarshal(n.Type, &many) == nil:
		out = append(out, many...)
	}
	for _, alt := range append(append([]schemaNode{}, n.AnyOf...), n.OneOf...) {
		for _, t := range alt.types() {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Params reads the top-level properties of an input schema, required ones
// first, each group in name order. A schema it cannot read gives none.
func Params(schema json.RawMessage) []Param {
	var root schemaNode
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return nil
	}
	req := map[string]bool{}
	for _, r := range root.Required {
		req[r] = true
	}
	out := make([]Param, 0, len(root.Properties))
	for name, n := range root.Properties {
		p := Param{Name: name, Types: n.types(), Required: req[name], Description: n.Description}
		if n.Items != nil {
			p.ItemTypes = n.Items.types()
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Signature renders a tool as `name(query: string, limit?: number)`.
func (t Tool) Signature() string {
	var b strings.Builder
	b.WriteString(t.Name)
	b.WriteByte('(')
	for i, p := range Params(t.InputSchema) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if !p.Required {
			b.WriteByte('?')
		}
		if ty := typeName(p); ty != "" {
			b.WriteString(": ")
			b.WriteString(ty)
		}
	}
	b.WriteByte(')')
	return b.String()
}

func typeName(p Param) string {
	var parts []string
	for _, t := range p.Types {
		if t == "array" && len(p.ItemTypes) == 1 {
			t = p.ItemTypes[0] + "[]"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "|")
}

// Summary is the first line of the description, cut to n runes.
func (t Tool) Summary(n int) string {
	d := strings.TrimSpace(t.Description)
	if i := strings.IndexAny(d, "\r\n"); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	return clip.Runes(d, n)
}
