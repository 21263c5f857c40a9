package catalog_test

import (
	"encoding/json"
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
