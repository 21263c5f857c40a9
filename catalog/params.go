package catalog

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpsh/mcp/internal/clip"
)

// Param is one top-level property of a tool's input schema, as its model
// (model.go) reads it: $refs followed, unions merged.
type Param struct {
	Name        string
	Types       []string // JSON Schema types, null last; empty when any value is allowed
	ItemTypes   []string // for arrays: the items' types
	Required    bool     // must be given: required, and without a default
	Description string
	// Type is the type as a signature shows it: enum literals (the first
	// few), T[] for arrays, {a, b}[] for arrays of objects, any for a
	// schema that allows any value.
	Type string
	// Shape is Type with the types of an array's object items.
	Shape string
	// Default is the default as JSON, cut short; "" when there is none.
	Default string
}

// maxEnum is how many enum literals a signature shows.
const maxEnum = 4

// Params reads the top-level properties of an input schema, required ones
// first, each group in name order. A schema it cannot read gives none.
func Params(schema json.RawMessage) []Param {
	m := models.get(schema)
	if m.root == nil {
		return nil
	}
	out := make([]Param, 0, len(m.root.fields))
	for name, f := range m.root.fields {
		p := Param{Name: name, Types: f.types, Required: m.needed(name), Description: f.desc,
			Type: f.typeText(false), Shape: f.typeText(true)}
		if f.items != nil {
			p.ItemTypes = f.items.types
		}
		if f.def != nil {
			p.Default = defaultText(*f.def)
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

// typeText renders a property's type; detail adds the types of the
// properties of an array's object items.
func (p *prop) typeText(detail bool) string {
	if p == nil || p.anyType {
		return "any"
	}
	var parts []string
	if len(p.enum) > 0 {
		for i, v := range p.enum {
			if i == maxEnum {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, jsonText(v, 24))
		}
		if contains(p.types, "null") && !slices.Contains(parts, "null") {
			parts = append(parts, "null")
		}
		return strings.Join(parts, "|")
	}
	for _, t := range p.types {
		if t == "array" && p.items != nil {
			t = p.items.itemText(detail) + "[]"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "|")
}

// itemText is the type of an array's items: {a, b} for objects with
// properties (with their types when detail), parenthesised for a union.
func (p *prop) itemText(detail bool) string {
	if p.anyType || len(p.fields) == 0 || len(p.enum) > 0 {
		t := p.typeText(false)
		if strings.Contains(t, "|") {
			t = "(" + t + ")"
		}
		return t
	}
	names := make([]string, 0, len(p.fields))
	for name := range p.fields {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := contains(p.required, names[i]), contains(p.required, names[j])
		if ri != rj {
			return ri
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for i, name := range names {
		if !detail && i == maxEnum {
			parts = append(parts, "…")
			break
		}
		part := name
		if !contains(p.required, name) {
			part += "?"
		}
		if detail {
			part += ": " + p.fields[name].typeText(false)
		}
		parts = append(parts, part)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// defaultText is a default as JSON, or … when that is longer than a
// signature has room for.
func defaultText(v any) string {
	if t := jsonText(v, 1<<10); utf8.RuneCountInString(t) <= 24 {
		return t
	}
	return clip.Ellipsis
}

// jsonText is v as JSON, cut to n runes.
func jsonText(v any, n int) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return clip.Runes(string(b), n)
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// Signature renders a tool as `name(query: string, limit?: integer = 10)`.
func (t Tool) Signature() string {
	var b strings.Builder
	b.WriteString(t.Name)
	b.WriteByte('(')
	for i, p := range Params(t.InputSchema) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Text())
	}
	b.WriteByte(')')
	return b.String()
}

// Text renders one parameter as a signature shows it.
func (p Param) Text() string {
	s := p.Name
	if !p.Required {
		s += "?"
	}
	s += ": " + p.Type
	if p.Default != "" {
		s += " = " + p.Default
	}
	return s
}

// Summary is the first line of the description, cut to n runes.
func (t Tool) Summary(n int) string {
	d := strings.TrimSpace(t.Description)
	if i := strings.IndexAny(d, "\r\n"); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	return clip.Runes(d, n)
}
