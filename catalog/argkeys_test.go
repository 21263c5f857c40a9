package catalog

import (
	"encoding/json"
	"reflect"
	"testing"
)

// What Tab offers after a tool's name: its keys, required first, with the
// values an enum (through a $ref, of an array's items, nullable) or a
// boolean allows.
func TestArgKeys(t *testing.T) {
	schema := `{"type": "object", "required": ["mode"],
	  "$defs": {"color": {"type": "string", "enum": ["red", "green"]}},
	  "properties": {
	    "mode": {"type": ["string", "null"], "enum": ["light", "dark", null]},
	    "color": {"$ref": "#/$defs/color"},
	    "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
	    "level": {"enum": [1, 2.5]},
	    "glossy": {"type": "boolean"},
	    "path": {"type": "string"},
	    "any": {}
	  }}`
	got := ArgKeys(json.RawMessage(schema))
	want := []ArgKey{
		{Name: "mode", Required: true, Values: []string{"light", "dark"}},
		{Name: "any"},
		{Name: "color", Values: []string{"red", "green"}},
		{Name: "glossy", Values: []string{"true", "false"}},
		{Name: "level", Values: []string{"1", "2.5"}},
		{Name: "path"},
		{Name: "tags", Repeats: true, Values: []string{"a", "b"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArgKeys:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{``, `{`, `{"type": "object"}`, `[]`} {
		if got := ArgKeys(json.RawMessage(bad)); len(got) != 0 {
			t.Errorf("ArgKeys(%q) = %+v, want none", bad, got)
		}
	}
}
