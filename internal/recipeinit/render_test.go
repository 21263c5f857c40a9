package recipeinit

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A package.json of the user's own gets pi added, its other keys and
// their text as they were; one with pi.mcp is a recipe, replaced only
// with --force.
func TestWithPi(t *testing.T) {
	pi := []byte(`{"mcp": {}}`)
	tests := []struct {
		doc, want string
		force     bool
		err       string
	}{
		{"{\n  \"name\": \"x\",\n  \"scripts\": {\"a\": \"b\"}\n}\n", "{\n  \"name\": \"x\",\n  \"scripts\": {\"a\": \"b\"},\n  \"pi\": {\"mcp\": {}}\n}\n", false, ""},
		{"{}", "{\n  \"pi\": {\"mcp\": {}}\n}", false, ""},
		{`{"name":"x","pi":{"mcp":{"servers":[]}},"z":1}`, `{"name":"x","pi":{"mcp": {}},"z":1}`, true, ""},
		{`{"pi": {"mcp": {"servers": []}}}`, "", false, "package.json already has pi.mcp: this directory is a recipe"},
		{`{"pi": {"other": 1}}`, "", true, "package.json has a pi key with more than mcp in it"},
		{`[1]`, "", false, "package.json is not a JSON object"},
		{`{"pi": 5}`, "", true, "package.json has a pi key that is not an object"},
		{`{"pi": {}, "pi": {"mcp": 1}}`, "", true, "package.json has the key \"pi\" twice"},
	}
	for _, tt := range tests {
		got, err := withPi([]byte(tt.doc), pi, tt.force)
		var ie *Error
		switch {
		case tt.err != "" && (!errors.As(err, &ie) || len(ie.Msg) < len(tt.err) || ie.Msg[:len(tt.err)] != tt.err):
			t.Errorf("%s: error %v, want %q", tt.doc, err, tt.err)
		case tt.err == "" && (err != nil || string(got) != tt.want):
			t.Errorf("%s:\n got %q, %v\nwant %q", tt.doc, got, err, tt.want)
		}
	}
}

// Whatever package.json holds, withPi gives valid JSON whose pi is the
// one given and whose other keys are as they were, or an error.
func FuzzWithPi(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"pi":{"mcp":1}}`, `{"pi":{}}`, `{"a":{"pi":1},"b":[1,"}"]}`, ` { "x" : "}" } `, `[]`, `"pi"`, `{"pi":{},"pi":{}}`, `{"pi":null}`} {
		f.Add(s, true)
	}
	pi := []byte(`{"mcp":{"servers":[]}}`)
	f.Fuzz(func(t *testing.T, doc string, force bool) {
		got, err := withPi([]byte(doc), pi, force)
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) && json.Valid([]byte(doc)) {
				t.Logf("not an *Error for valid JSON: %v", err)
			}
			return
		}
		var before, after map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &before) != nil || json.Unmarshal(got, &after) != nil {
			t.Fatalf("%q became %q", doc, got)
		}
		var p any
		if json.Unmarshal(after["pi"], &p) != nil || string(compact(t, after["pi"])) != string(pi) {
			t.Fatalf("pi is %s", after["pi"])
		}
		for k, v := range before {
			if k != "pi" && string(compact(t, after[k])) != string(compact(t, v)) {
				t.Fatalf("%s: %s became %s", k, v, after[k])
			}
		}
		if len(after) != len(before)+btoi(before["pi"] == nil) {
			t.Fatalf("keys %d became %d", len(before), len(after))
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compact(t *testing.T, v json.RawMessage) []byte {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	b, _ := json.Marshal(x)
	return b
}

// The local binding goes into .gitignore once.
func TestGitignore(t *testing.T) {
	dir := t.TempDir()
	data, ok := gitignore(dir)
	if !ok || string(data) != "# this machine's binding of the recipe's servers: credentials, local paths\n.pi/mcp.local.json\n" {
		t.Fatalf("new: %q %v", data, ok)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, ok := gitignore(dir); !ok || string(data[:13]) != "node_modules\n" {
		t.Fatalf("added: %q", data)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/.pi/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := gitignore(dir); ok {
		t.Fatal("added although .pi/ is ignored")
	}
}
