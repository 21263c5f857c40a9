package catalog

import (
	"encoding/json"
	"sort"
)

// ArgKey is one top-level property of a tool's input schema as Tab
// completes it after the tool's name, read from the same model as
// coercion and signatures (model.go).
type ArgKey struct {
	Name     string
	Required bool // must be given (Param.Required)
	// Repeats says that key=value may be given again, each adding an item
	// (an array).
	Repeats bool
	// Values are the values the property allows, as key=value writes
	// them, when the schema names them: its enum's (or its items' for an
	// array), true and false for a boolean; nil when any value may do.
	// null is not among them: an argument left out says it.
	Values []string
}

// ArgKeys are the top-level properties of an input schema, required ones
// first, each group in name order. A schema it cannot read gives none.
func ArgKeys(schema json.RawMessage) []ArgKey {
	m := models.get(schema)
	if m.root == nil {
		return nil
	}
	out := make([]ArgKey, 0, len(m.root.fields))
	for name, f := range m.root.fields {
		k := ArgKey{Name: name, Required: m.needed(name), Repeats: f.isArray()}
		v := f
		if k.Repeats && v.items != nil {
			v = v.items
		}
		k.Values = v.values()
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// values are the values a property allows as key=value gives them, nil
// when the schema does not name them.
func (p *prop) values() []string {
	if p == nil || p.anyType {
		return nil
	}
	var out []string
	for _, v := range p.enum {
		switch v := v.(type) {
		case nil:
		case string:
			out = append(out, v)
		default:
			b, err := json.Marshal(v)
			if err == nil {
				out = append(out, string(b))
			}
		}
	}
	if len(p.enum) == 0 && len(p.types) > 0 && !p.unknownType() {
		for _, t := range p.types {
			if t != "boolean" && t != "null" {
				return nil
			}
		}
		out = []string{"true", "false"}
	}
	return out
}
