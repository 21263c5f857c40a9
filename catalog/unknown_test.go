package catalog

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckKnown(t *testing.T) {
	const props = `"properties": {"path": {"type": "string"}, "head": {"type": "number"}, "tail": {"type": "number"}}`
	cases := []struct {
		name, schema, args string
		keys               []string
		suggest            map[string]string
	}{
		{"declared", `{"type": "object", ` + props + `}`, `{"path": "a", "head": 1}`, nil, nil},
		{"absent: closed", `{"type": "object", ` + props + `}`, `{"path": "a", "heda": 1}`,
			[]string{"heda"}, map[string]string{"heda": "head"}},
		{"false: closed", `{"type": "object", ` + props + `, "additionalProperties": false}`, `{"heda": 1}`,
			[]string{"heda"}, map[string]string{"heda": "head"}},
		{"in the order given, suggestions only where close", `{` + props + `}`, `{"zzz": 1, "pth": "a", "Tail": 2}`,
			[]string{"zzz", "pth", "Tail"}, map[string]string{"pth": "path", "Tail": "tail"}},
		{"true: open", `{` + props + `, "additionalProperties": true}`, `{"heda": 1}`, nil, nil},
		{"a schema for others: open", `{` + props + `, "additionalProperties": {"type": "string"}}`, `{"x": "1"}`, nil, nil},
		{"patternProperties: open", `{` + props + `, "patternProperties": {"^x-": {}}}`, `{"x-a": 1}`, nil, nil},
		{"false with patternProperties: the schema decides", `{` + props + `, "additionalProperties": false, "patternProperties": {"^x-": {}}}`, `{"x-a": 1}`, nil, nil},
		{"composition may declare more: open", `{` + props + `, "allOf": [{"properties": {"extra": {}}}]}`, `{"extra": 1}`, nil, nil},
		{"a $ref: open", `{` + props + `, "$ref": "#/$defs/x"}`, `{"extra": 1}`, nil, nil},
		{"false with composition: still closed", `{` + props + `, "additionalProperties": false, "anyOf": [{}]}`, `{"extra": 1}`,
			[]string{"extra"}, nil},
		{"no properties: open", `{"type": "object"}`, `{"anything": 1}`, nil, nil},
		{"empty properties: open", `{"type": "object", "properties": {}}`, `{"anything": 1}`, nil, nil},
		{"no schema", ``, `{"anything": 1}`, nil, nil},
		{"not an object: left to ValidateArgs", `{` + props + `}`, `[1]`, nil, nil},
	}
	for _, c := range cases {
		err := CheckKnown(json.RawMessage(c.schema), json.RawMessage(c.args))
		var ue *UnknownArgsError
		switch {
		case c.keys == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.keys == nil:
		case !errors.As(err, &ue):
			t.Errorf("%s: got %v, want an UnknownArgsError", c.name, err)
		default:
			if diff := cmp.Diff(c.keys, ue.Keys); diff != "" {
				t.Errorf("%s: keys (-want +got):\n%s", c.name, diff)
			}
			if diff := cmp.Diff(c.suggest, ue.Suggest); diff != "" {
				t.Errorf("%s: suggestions (-want +got):\n%s", c.name, diff)
			}
			if ue.ExitCode() != 2 {
				t.Errorf("%s: exit code %d, want 2", c.name, ue.ExitCode())
			}
		}
	}
}

func TestUnknownArgsError_Error(t *testing.T) {
	cases := []struct {
		err  UnknownArgsError
		want string
	}{
		{UnknownArgsError{Keys: []string{"heda"}, Suggest: map[string]string{"heda": "head"}},
			"unknown argument heda (did you mean head?)"},
		{UnknownArgsError{Tool: "fs.read", Keys: []string{"pth", "zzz"}, Suggest: map[string]string{"pth": "path"}},
			"fs.read: unknown arguments pth (did you mean path?), zzz"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestWithoutUnknown(t *testing.T) {
	schema := json.RawMessage(`{"properties": {"path": {}, "head": {}}, "additionalProperties": false}`)
	got := WithoutUnknown(schema, json.RawMessage(`{"heda": 1, "path": "a", "x": {"y": 2}}`))
	if string(got) != `{"path":"a"}` {
		t.Errorf("got %s", got)
	}
	open := json.RawMessage(`{"properties": {"path": {}}, "additionalProperties": true}`)
	if got := WithoutUnknown(open, json.RawMessage(`{"x": 1}`)); string(got) != `{"x": 1}` {
		t.Errorf("open schema: got %s", got)
	}
}

func TestNearest(t *testing.T) {
	declared := []string{"head", "path", "tail"}
	cases := map[string]string{
		"heda":  "head", // a swap of neighbours is one edit
		"hed":   "head",
		"PATH":  "path",
		"paths": "path",
		"tial":  "tail",
		"x":     "",
		"hd":    "", // two edits: as many as it has characters
		"query": "",
	}
	for key, want := range cases {
		if got := nearest(key, declared); got != want {
			t.Errorf("nearest(%q) = %q, want %q", key, got, want)
		}
	}
}
