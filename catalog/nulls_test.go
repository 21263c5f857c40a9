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
