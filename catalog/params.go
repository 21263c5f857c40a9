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
	Required    bool     // must be given: required, and without a default
	Description string
	// Type is the type as a signature shows it: A|B for a union (each
	// branch of an anyOf or oneOf), enum literals (the first few), T[]
	// for arrays, (A|B)[] for arrays of a union, {a, b?} for an object
	// with properties (the first few), any for a schema that allows any
	// value.
	Type string
	// Shape is Type with every enum literal, as `mcp list SERVER.TOOL`
	// shows it.
	Shape string
	// Default is the default as JSON, cut short; "" when there is none.
	Default string

	prop *prop
}

// maxEnum is how many enum literals a signature shows, and maxFields how
// many properties of an object.
const (
	maxEnum   = 4
	maxFields = 4
)

// Params reads the top-level properties of an input schema, required ones
// first, each group in name order. A schema it cannot read gives none.
func Params(schema json.RawMessage) []Param {
	m := models.get(schema)
	if m.root == nil {
		return nil
	}
	out := make([]Param, 0, len(m.root.fields))
	for _, name := range m.root.names() {
		out = append(out, m.root.param(name, m.needed(name)))
	}
	return out
}

// param is one property of an object; required says whether it must be
// given.
func (p *prop) param(name string, required bool) Param {
	f := p.fields[name]
	out := Param{Name: name, Required: required, Type: f.typeText(false), Shape: f.typeText(true), prop: f}
	if f != nil {
		out.Types, out.Description = f.types, f.desc
		if f.def != nil {
			out.Default = defaultText(*f.def)
		}
	}
	return out
}

// needs says whether property name of an object must be given: it is
// required and has no default.
func (p *prop) needs(name string) bool {
	f := p.fields[name]
	return contains(p.required, name) && (f == nil || f.def == nil)
}

// names are an object's properties, those it needs first, each group in
// name order.
func (p *prop) names() []string {
	names := make([]string, 0, len(p.fields))
	for name := range p.fields {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		ni, nj := p.needs(names[i]), p.needs(names[j])
		if ni != nj {
			return ni
		}
		return names[i] < names[j]
	})
	return names
}

// typeText renders a property's type; full shows every enum literal.
func (p *prop) typeText(full bool) string { return strings.Join(p.alternatives(full), "|") }

// alternatives are the types a property allows, as a signature shows
// each: the branches of its union in order, enum literals together where
// the first of them is, null last.
func (p *prop) alternatives(full bool) []string {
	if p == nil || p.anyType {
		return []string{"any"}
	}
	var out, enum []string
	enumAt := -1 // where in out the enum's literals go, together
	add := func(t string) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	union := len(p.branches) > 1
	for _, b := range p.branchesOrSelf() {
		switch {
		case b.anyType:
			return []string{"any"}
		case len(b.enum) > 0:
			if enumAt < 0 {
				enumAt = len(out)
			}
			for _, v := range b.enum {
				if t := jsonText(v, 24); t != "null" && !slices.Contains(enum, t) {
					enum = append(enum, t)
				}
			}
		case len(b.branches) > 1: // a union within a union: its branches are this one's
			for _, t := range b.alternatives(full) {
				if t != "null" {
					add(t)
				}
			}
		default:
			for _, t := range b.types {
				if t != "null" {
					add(b.oneType(t, full, union))
				}
			}
		}
	}
	if enumAt >= 0 {
		if !full && len(enum) > maxEnum {
			enum = append(enum[:maxEnum:maxEnum], clip.Ellipsis)
		}
		out = slices.Insert(out, enumAt, enum...)
	}
	if contains(p.types, "null") || slices.ContainsFunc(p.enum, func(v any) bool { return v == nil }) {
		out = append(out, "null")
	}
	return out
}

// branchesOrSelf are the branches of p's union, or p alone.
func (p *prop) branchesOrSelf() []*prop {
	if len(p.branches) > 1 {
		return p.branches
	}
	return []*prop{p}
}

// object is an object with properties a property holds, and whether it
// is one branch of a union.
type object struct {
	p      *prop
	branch bool
}

// objects are the objects with properties p holds: itself, its array's
// items, the branches of its union, in order, each once.
func (p *prop) objects(out []object, branch bool) []object {
	if p == nil || p.anyType {
		return out
	}
	if len(p.branches) > 1 {
		for _, b := range p.branches {
			out = b.objects(out, true)
		}
		return out
	}
	if len(p.fields) > 0 && contains(p.types, "object") &&
		!slices.ContainsFunc(out, func(o object) bool { return o.p == p }) {
		out = append(out, object{p, branch})
	}
	if p.items != nil && contains(p.types, "array") {
		out = p.items.objects(out, false)
	}
	return out
}

// oneType renders one of p's types: an array as its items' type and [],
// an object with properties as {a, b?}. An object that is a branch of a
// union shows the properties it requires, which tell the branches apart,
// and … for the others; the detailed view lists them all.
func (p *prop) oneType(t string, full, branch bool) string {
	switch {
	case t == "array" && p.items != nil:
		alts := p.items.alternatives(full)
		if len(alts) > 1 {
			return "(" + strings.Join(alts, "|") + ")[]"
		}
		return alts[0] + "[]"
	case t == "object" && len(p.fields) > 0:
		names := p.names()
		parts := make([]string, 0, len(names))
		brief := branch && p.needs(names[0])
		for i, name := range names {
			if i == maxFields || brief && !p.needs(name) {
				parts = append(parts, clip.Ellipsis)
				break
			}
			if !p.needs(name) {
				name += "?"
			}
			parts = append(parts, name)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return t
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
		if zeroDefault[p.Default] {
			p.Default = "" // an optional "", false or empty list says no more than ? does
		}
		b.WriteString(p.Text())
	}
	b.WriteByte(')')
	return b.String()
}

// zeroDefault are the defaults the one-line signature leaves out; the
// detailed view (WriteText) shows them.
var zeroDefault = map[string]bool{`""`: true, "false": true, "null": true, "[]": true, "{}": true}

// Text renders one parameter as `name?: type = default`.
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
