package catalog_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

// chartSchema is the input schema of one tool of @antv/mcp-server-chart,
// as the server lists it.
func chartSchema(t *testing.T, tool string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "bench", "data", "chart", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name == tool {
			return tl.InputSchema
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// An optional property set to null that does not allow null is left out
// at any depth, however the arguments are given; a required one is still
// refused.
func TestPrepareArgs_nullsAtAnyDepth(t *testing.T) {
	schema := chartSchema(t, "generate_bar_chart")
	tests := []struct {
		name  string
		base  string
		pairs []string
		want  string // the arguments sent, or the error
	}{
		{"key=value", "", []string{`data=[{"category":"a","value":1,"group":null}]`},
			`{"data":[{"category":"a","value":1}]}`},
		{"key:=JSON", "", []string{`data:=[{"category":"a","value":1,"group":null}, {"category":"b","value":2}]`},
			`{"data":[{"category":"a","value":1},{"category":"b","value":2}]}`},
		{"repeated key", "", []string{`data={"category":"a","value":1,"group":null}`, `data={"category":"b","group":null,"value":2}`},
			`{"data":[{"category":"a","value":1},{"category":"b","value":2}]}`},
		{"--args", `{"data":[{"category":"a","value":1,"group":null}],"title":null,"style":{"backgroundColor":null,"palette":["#fff"]}}`, nil,
			`{"data":[{"category":"a","value":1}],"style":{"palette":["#fff"]}}`},
		{"top-level key:=null", "", []string{`data=[{"category":"a","value":1}]`, `title:=null`},
			`{"data":[{"category":"a","value":1}]}`},
		{"no null", `{"data":[{"category":"null","value":1}]}`, nil,
			`{"data":[{"category":"null","value":1}]}`},
		{"required inside", "", []string{`data=[{"category":null,"value":1}]`},
			`/data/0/category: got null, want string`},
		{"required at the top", `{"data":null}`, nil,
			`/data: got null, want array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var base json.RawMessage
			if tt.base != "" {
				base = json.RawMessage(tt.base)
			}
			got, err := catalog.PrepareArgs(schema, base, tt.pairs, false)
			if err != nil {
				if err.Error() != tt.want {
					t.Errorf("error %q, want %q", err, tt.want)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("sent %s, want %s", got, tt.want)
			}
		})
	}
}

// A wrong value for an enum that also allows null names the values and
// null in one line, however the schema writes the union.
func TestValidateArgs_nullableEnum(t *testing.T) {
	tests := []struct {
		prop string
		arg  string
		want string
	}{
		{`{"anyOf":[{"type":"string","enum":["light","dark"]},{"type":"null"}]}`, `"blue"`,
			`/c: value must be one of 'light', 'dark' or null`},
		{`{"anyOf":[{"enum":["light","dark"]},{"type":"null"}]}`, `"blue"`,
			`/c: value must be one of 'light', 'dark' or null`},
		{`{"oneOf":[{"enum":["light","dark"]},{"type":"null"}]}`, `"blue"`,
			`/c: value must be one of 'light', 'dark' or null`},
		{`{"type":["string","null"],"enum":["light","dark",null]}`, `"blue"`,
			`/c: value must be one of 'light', 'dark' or null`},
		{`{"enum":["light",null]}`, `"blue"`,
			`/c: value must be 'light' or null`},
		{`{"anyOf":[{"const":"light"},{"const":"dark"},{"type":"null"}]}`, `"blue"`,
			`/c: value must be one of 'light', 'dark' or null`},
		{`{"anyOf":[{"type":"string","enum":["light","dark"]},{"type":"null"}]}`, `5`,
			`/c: got number, want string or null`},
		{`{"anyOf":[{"type":"string","minLength":9},{"type":"string","format":"email"},{"type":"null"}]}`, `5`,
			`/c: got number, want string or null`},
		// null is not among the values: the enum refuses it.
		{`{"type":["string","null"],"enum":["light","dark"]}`, `"blue"`,
			`/c: value must be one of 'light', 'dark'`},
		// a union of more than values and null keeps a line a branch.
		{`{"anyOf":[{"enum":["light","dark"]},{"type":"integer"},{"type":"null"}]}`, `"blue"`,
			`/c: got string, want integer; /c: got string, want null; /c: value must be one of 'light', 'dark'`},
	}
	for _, tt := range tests {
		schema := json.RawMessage(`{"type":"object","properties":{"c":` + tt.prop + `}}`)
		err := catalog.ValidateArgs(schema, json.RawMessage(`{"c":`+tt.arg+`}`))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s with %s: %v, want %q", tt.prop, tt.arg, err, tt.want)
		}
	}
}

// A bare word, or a value not of its property's type, is refused with the
// word written as it would be taken.
func TestBuildArgs_try(t *testing.T) {
	readFile := `{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"number"}},"required":["path"]}`
	writeFile := `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`
	bounded := `{"type":"object","properties":{"top":{"type":"integer","minimum":1,"maximum":5},"floor":{"type":"integer","minimum":100},` +
		`"below":{"type":"integer","exclusiveMaximum":3},"above":{"type":"number","exclusiveMinimum":12.5}}}`
	search := `{"type":"object","properties":{"pattern":{"type":"string"},"maxCount":{"type":"integer"},` +
		`"limit":{"type":"integer","default":50},"ratio":{"type":"number"},"exact":{"type":"boolean"}}}`
	tests := []struct {
		schema    string
		pairs     []string
		want, try string // the error's Want and Try
		msg       string
	}{
		{readFile, []string{"/etc/hosts"}, "", "path=/etc/hosts", "/etc/hosts: expected key=value or key:=JSON"},
		{writeFile, []string{"path=/x", "hello world"}, "", "content='hello world'", "hello world: expected key=value or key:=JSON"},
		{writeFile, []string{"hello", "path=/x"}, "", "content=hello", "hello: expected key=value or key:=JSON"},
		{writeFile, []string{"path=/x", "content=y", "z"}, "", "path=z", "z: expected key=value or key:=JSON"},
		{`{"type":"object","properties":{"query":{"type":"string"}}}`, []string{"ada"}, "", "query=ada", "ada: expected key=value or key:=JSON"},
		{search, []string{"/etc/hosts"}, "", "", "/etc/hosts: expected key=value or key:=JSON"},
		{search, []string{"maxCount=abc"}, "integer", "maxCount=10", `maxCount: expected an integer, got "abc"`},
		{search, []string{"limit=abc"}, "integer", "limit=50", `limit: expected an integer, got "abc"`},
		{search, []string{"ratio=abc"}, "number", "ratio=10", `ratio: expected a number, got "abc"`},
		{search, []string{"exact=yes"}, "boolean", "exact=true", `exact: expected true or false, got "yes"`},
		// The example keeps within the schema's bounds.
		{bounded, []string{"top=x"}, "integer", "top=5", `top: expected an integer, got "x"`},
		{bounded, []string{"floor=x"}, "integer", "floor=100", `floor: expected an integer, got "x"`},
		{bounded, []string{"below=x"}, "integer", "below=2", `below: expected an integer, got "x"`},
		{bounded, []string{"above=x"}, "number", "above=13", `above: expected a number, got "x"`},
	}
	for _, tt := range tests {
		_, err := catalog.BuildArgs(json.RawMessage(tt.schema), nil, tt.pairs)
		var ae *catalog.ArgError
		if !errors.As(err, &ae) {
			t.Errorf("%q: %v, want an ArgError", tt.pairs, err)
			continue
		}
		if err.Error() != tt.msg || ae.Want != tt.want || ae.Try != tt.try {
			t.Errorf("%q: %q (Want %q, Try %q), want %q (Want %q, Try %q)", tt.pairs, err, ae.Want, ae.Try, tt.msg, tt.want, tt.try)
		}
	}
}
