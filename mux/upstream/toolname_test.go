package upstream

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
)

// A tools/list entry that cannot be a tool is not offered, and a warning
// names it by its place in the list, with what is wrong and, when it has
// one, its title, printable; the tools beside it are offered. Over stdio
// and streamable HTTP alike, and once per connection.
func TestListTools_invalidEntries(t *testing.T) {
	t.Parallel()
	want := []string{
		`fake: the tool at tools[1] of its tools/list is not offered: its "name" is a number (42), not a string`,
		`fake: the tool at tools[2] (titled "Nameless ]0;owned [2J") of its tools/list is not offered: it has no "name"`,
		`fake: the tool at tools[3] of its tools/list is not offered: its "name" is empty`,
		`fake: the tool at tools[4] of its tools/list is not offered: its "name" is an object, not a string`,
		`fake: the tool at tools[5] of its tools/list is not offered: it is a string, not an object`,
	}
	for _, kind := range []string{"stdio", "json"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := testenv.FakeServer(t, testenv.ModeMalformed+testenv.InvalidTools.Name)
			if kind == "json" {
				e = malformedServer(t, testenv.InvalidTools, false)
			}
			var mu sync.Mutex
			var warnings []string
			u := connect(t, e, Options{OnWarning: func(line string) {
				mu.Lock()
				defer mu.Unlock()
				warnings = append(warnings, line)
			}})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for range 2 {
				tools, err := u.ListTools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range tools {
					names = append(names, tool.Name)
				}
				if !slices.Equal(names, []string{"t", "u"}) {
					t.Errorf("tools offered: %q, want t and u", names)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(warnings, want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestInvalidTool(t *testing.T) {
	for entry, want := range map[string]string{
		`{"name":"t"}`:                           "",
		` {"Name":"t"}`:                          "",
		`{"name":"t","name":null}`:               "",
		`{"name":null,"name":"t"}`:               "",
		`{"name":"t","description":5}`:           "",
		`{"name":"t","name":5}`:                  `its "name" is a number (5), not a string`,
		`{"name":true}`:                          `its "name" is true, not a string`,
		`{"name":[1]}`:                           `its "name" is an array, not a string`,
		`{"name":12345678901234567890123456789}`: `its "name" is a number, not a string`,
		`{"name":null}`:                          `it has no "name"`,
		`{}`:                                     `it has no "name"`,
		`{"nam\u0065":""}`:                       `its "name" is empty`,
		`null`:                                   "it is null, not an object",
		`[]`:                                     "it is an array, not an object",
		`7`:                                      "it is a number (7), not an object",
	} {
		if got := invalidTool(json.RawMessage(entry)); got != want {
			t.Errorf("invalidTool(%s) = %q, want %q", entry, got, want)
		}
	}
}

// invalidTool agrees with encoding/json, as catalog.DecodeTool reads a
// tool: an entry is a tool's exactly when it decodes into an object whose
// name is a string that is not empty.
func FuzzInvalidTool(f *testing.F) {
	for _, s := range []string{`{"name":"t"}`, `{"NAME":5}`, `{"name":null,"name":"x"}`, `{"ſame":"x"}`, `[]`, `{"name":"\ud800"}`, `{"name":"x","name":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		if !json.Valid([]byte(entry)) {
			return
		}
		var v struct {
			Name string `json:"name"`
		}
		err := json.Unmarshal([]byte(entry), &v)
		isTool := err == nil && v.Name != "" && strings.HasPrefix(strings.TrimLeft(entry, " \t\r\n"), "{")
		if got := invalidTool(json.RawMessage(entry)); (got == "") != isTool {
			t.Errorf("invalidTool(%s) = %q, but encoding/json says name %q, err %v", entry, got, v.Name, err)
		}
	})
}
