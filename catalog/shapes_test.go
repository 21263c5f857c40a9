package catalog_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// What goes on the wire for the schema shapes of popular servers
// (testenv.Shapes): key=value coerced by the property's union, its $ref's
// target, nulls by whether the property allows null and must be given.
func TestPrepareArgs_shapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  string
		base  string
		pairs []string
		want  string
	}{
		{"set_config_value", "", []string{"key=fileReadLineLimit", "value=1000"}, `{"key":"fileReadLineLimit","value":1000}`},
		{"set_config_value", "", []string{"key=k", "value=false"}, `{"key":"k","value":false}`},
		{"set_config_value", "", []string{"key=k", `value=["mkfs","dd"]`}, `{"key":"k","value":["mkfs","dd"]}`},
		{"set_config_value", "", []string{"key=k", "value=null"}, `{"key":"k","value":null}`},
		{"set_config_value", "", []string{"key=k", "value=/tmp"}, `{"key":"k","value":"/tmp"}`},
		{"set_config_value", "", []string{"key=500"}, `{"key":"500"}`},
		{"set_config_value", "", []string{"key=k", `value:="500"`}, `{"key":"k","value":"500"}`},
		{"sequentialthinking", "", []string{"thought=t", "nextThoughtNeeded=false", "thoughtNumber=1", "totalThoughts=2",
			"isRevision=true", "revisesThought=1"},
			`{"thought":"t","nextThoughtNeeded":false,"thoughtNumber":1,"totalThoughts":2,"isRevision":true,"revisesThought":1}`},
		{"post_page", "", []string{`parent={"page_id":"59833787-2cf9-4fdf-8782-e53db20768a5"}`},
			`{"parent":{"page_id":"59833787-2cf9-4fdf-8782-e53db20768a5"}}`},
		{"post_page", "", []string{"parent=workspace"}, `{"parent":"workspace"}`},
		{"post_page", "", []string{"parent=p", `children={"type":"paragraph"}`}, `{"parent":"p","children":[{"type":"paragraph"}]}`},
		{"browser_take_screenshot", "", nil, `{}`},
		{"browser_take_screenshot", "", []string{"scale=device", "fullPage=true"}, `{"scale":"device","fullPage":true}`},
		{"browser_take_screenshot", "", []string{"scale=null"}, `{}`},
		{"browser_emulate", "", []string{"region=eu", "colorScheme=null"}, `{"region":"eu","colorScheme":null}`},
		{"browser_emulate", "", []string{"region=eu", "colorScheme=dark"}, `{"region":"eu","colorScheme":"dark"}`},
		{"browser_emulate", "", []string{"region=eu", "verbose=null"}, `{"region":"eu"}`},
		{"browser_emulate", `{"region":"eu","verbose":null,"colorScheme":null}`, nil, `{"region":"eu","colorScheme":null}`},
		{"browser_emulate", `{"region":"eu","verbose":true}`, []string{"verbose=null"}, `{"region":"eu"}`},
	}
	for _, tt := range tests {
		got, err := catalog.PrepareArgs(json.RawMessage(testenv.Shapes[tt.tool]), json.RawMessage(tt.base), tt.pairs, false)
		if err != nil {
			t.Errorf("%s %s %q: %v", tt.tool, tt.base, tt.pairs, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s %s %q = %s, want %s", tt.tool, tt.base, tt.pairs, got, tt.want)
		}
	}
}

// The same shapes refuse what their servers would refuse, with exit 2.
func TestPrepareArgs_shapesRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  string
		base  string
		pairs []string
		want  string
	}{
		{"browser_emulate", "", []string{"region=null"}, "region: null is not allowed: the argument is required"},
		{"browser_emulate", "", []string{"region=eu", "colorScheme=blue"}, "/colorScheme"},
		{"browser_emulate", `{"region":null}`, nil, "/region: got null, want string"},
		{"browser_take_screenshot", "", []string{"scale=big"}, "/scale: value must be one of 'css', 'device'"},
		{"sequentialthinking", "", []string{"thought=t", "nextThoughtNeeded=false", "thoughtNumber=1", "totalThoughts=2", "isRevision=maybe"},
			"isRevision: expected true or false"},
		{"sequentialthinking", "", []string{"thought=t", "nextThoughtNeeded=false", "thoughtNumber=1"}, "missing required argument totalThoughts"},
		{"post_page", "", []string{`parent={"page":1}`}, "missing property 'page_id'"},
	}
	for _, tt := range tests {
		_, err := catalog.PrepareArgs(json.RawMessage(testenv.Shapes[tt.tool]), json.RawMessage(tt.base), tt.pairs, false)
		var coded interface{ ExitCode() int }
		if err == nil || !errors.As(err, &coded) || coded.ExitCode() != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s %q: err = %v, want exit 2 and %q", tt.tool, tt.base, tt.pairs, err, tt.want)
		}
	}
}

// Signatures show enum literals (the first four), defaults, $ref-resolved
// types, item shapes and any.
func TestSignature_shapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ tool, want string }{
		{"set_config_value", `set_config_value(key: string, value?: string|number|boolean|string[]|null)`},
		{"sequentialthinking", `sequentialthinking(nextThoughtNeeded: boolean, thought: string, thoughtNumber: integer, totalThoughts: integer, isRevision?: boolean, revisesThought?: integer)`},
		{"post_page", `post_page(parent: {page_id}|string, children?: {type, text?}[])`},
		{"browser_take_screenshot", `browser_take_screenshot(filename?: string, fullPage?: boolean, level?: "error"|"warning"|"info"|"debug"|… = "info", scale?: "css"|"device" = "css", type?: "png"|"jpeg" = "png")`},
		{"browser_emulate", `browser_emulate(region: string, colorScheme?: "light"|"dark"|null, verbose?: boolean)`},
	}
	for _, tt := range tests {
		got := catalog.Tool{Name: tt.tool, InputSchema: json.RawMessage(testenv.Shapes[tt.tool])}.Signature()
		if got != tt.want {
			t.Errorf("signature\n got %s\nwant %s", got, tt.want)
		}
	}
	any := catalog.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{},"y":{"description":"d"}}}`)}
	if got, want := any.Signature(), "t(x?: any, y?: any)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	long := catalog.Tool{Name: "t", InputSchema: json.RawMessage(`{"properties":{"u":{"type":"string","default":"https://example.com/a/long/default"}}}`)}
	if got, want := long.Signature(), "t(u?: string = …)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	ps := catalog.Params(json.RawMessage(testenv.Shapes["post_page"]))
	if len(ps) != 2 || ps[1].Shape != "{type, text?}[]" {
		t.Errorf("post_page params: %+v", ps)
	}
}

// A $ref that leads back to itself neither hangs nor panics: the
// signature reads it as any, and the arguments are refused as the library
// refuses the cycle, in one line that names no file.
func TestPrepareArgs_refCycle(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`,
	} {
		if got := (catalog.Tool{Name: "t", InputSchema: json.RawMessage(s)}).Signature(); !strings.HasPrefix(got, "t(a?: any") {
			t.Errorf("%s: signature %s", s, got)
		}
		_, err := catalog.PrepareArgs(json.RawMessage(s), nil, []string{"a=1"}, false)
		var ie *catalog.InvalidArgsError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "reference cycle") || strings.Contains(err.Error(), "file:") {
			t.Errorf("%s: err = %v, want the cycle refused", s, err)
		}
	}
	tree := `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`
	got, err := catalog.PrepareArgs(json.RawMessage(tree), nil, []string{`tree={"kids":[{"kids":[]}]}`}, false)
	if err != nil || string(got) != `{"tree":{"kids":[{"kids":[]}]}}` {
		t.Errorf("a recursive type: %s, %v", got, err)
	}
}
