package toolsmode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

// What a client receives of an upstream result is what the SDK's encoding
// of passthrough's result gives (CallToolResult.MarshalJSON, which the
// server runs on every result).
func TestPassthrough_Encoding(t *testing.T) {
	raw := `{"content":[` +
		`{"type":"hologram","z":{"b":1,"a":[1.50,2e3]},"data":"AAEC"},` +
		`{ "type" : "text", "text" : "<b>a & b</b>" }` +
		`],"structuredContent":{"n":12345678901234567890,"z":0.10,"a":"x"},"isError":true,` +
		`"_meta":{"io.example/trace":{"id":12345678901234567890,"tags":["<x>"]},"plain":1},` +
		`"extra":"dropped"}`
	res := &catalog.Result{
		Raw:     json.RawMessage(raw),
		IsError: true,
		Content: []json.RawMessage{
			json.RawMessage(`{"type":"hologram","z":{"b":1,"a":[1.50,2e3]},"data":"AAEC"}`),
			json.RawMessage(`{ "type" : "text", "text" : "<b>a & b</b>" }`),
		},
		Structured: json.RawMessage(`{"n":12345678901234567890,"z":0.10,"a":"x"}`),
	}
	out, err := passthrough(res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Content           []json.RawMessage          `json:"content"`
		StructuredContent json.RawMessage            `json:"structuredContent"`
		IsError           bool                       `json:"isError"`
		Meta              map[string]json.RawMessage `json:"_meta"`
		Extra             json.RawMessage            `json:"extra"`
	}
	if err := json.Unmarshal(got, &wire); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	// Unknown types, key order and number spelling survive; insignificant
	// whitespace does not, and <, > and & in strings are escaped (the same
	// JSON value, other bytes).
	want := []string{
		`{"type":"hologram","z":{"b":1,"a":[1.50,2e3]},"data":"AAEC"}`,
		`{"type":"text","text":"\u003cb\u003ea \u0026 b\u003c/b\u003e"}`,
	}
	if len(wire.Content) != len(want) {
		t.Fatalf("content = %s", wire.Content)
	}
	for i, w := range want {
		if string(wire.Content[i]) != w {
			t.Errorf("content[%d] = %s, want %s", i, wire.Content[i], w)
		}
	}
	if s := string(wire.StructuredContent); s != `{"n":12345678901234567890,"z":0.10,"a":"x"}` {
		t.Errorf("structuredContent = %s", s)
	}
	if !wire.IsError {
		t.Error("isError lost")
	}
	// _meta key by key, each value raw.
	if s := string(wire.Meta["io.example/trace"]); s != `{"id":12345678901234567890,"tags":["\u003cx\u003e"]}` {
		t.Errorf(`_meta["io.example/trace"] = %s`, s)
	}
	if s := string(wire.Meta["plain"]); s != `1` || len(wire.Meta) != 2 {
		t.Errorf("_meta = %v", wire.Meta)
	}
	if wire.Extra != nil {
		t.Errorf("extra = %s, want it dropped", wire.Extra)
	}

	if _, err := passthrough(&catalog.Result{Raw: json.RawMessage(`{"content":`)}); err == nil || !strings.HasPrefix(err.Error(), "the server sent an invalid result: ") {
		t.Errorf("passthrough of a broken result: %v", err)
	}
}

// The definitions the SDK refuses are found before anything is served,
// with its reason.
func TestCheckDef(t *testing.T) {
	checker := newChecker()
	tests := []struct {
		name, input, output string
		err                 string // "" when accepted
	}{
		{"plain", `{"type":"object","properties":{"q":{"type":"string"}}}`, ``, ""},
		{"rich", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","anyOf":[{"required":["a"]}],"x-extra":true}`, `{"type":"array"}`, ""},
		{"none", ``, ``, ""}, // served as {"type":"object"}
		{"string", `{"type":"string"}`, ``, `input schema must have type "object" (got string)`},
		{"untyped", `{"properties":{"q":{}}}`, ``, `input schema must have type "object" (got <nil>)`},
		{"header on an object", `{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`, ``,
			`invalid parameter header annotations: property "o": x-mcp-header can only be applied to primitive types (integer, string, boolean), got "object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := catalog.Tool{Server: "s", Name: "t", InputSchema: json.RawMessage(tt.input)}
			if tt.output != "" {
				ct.OutputSchema = json.RawMessage(tt.output)
			}
			err := checkDef(checker, toolDef("s__"+strings.ReplaceAll(tt.name, " ", "_"), ct))
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("checkDef = %v, want nil", err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("checkDef = %v, want %s", err, tt.err)
			}
		})
	}
}

// toolDef keeps the upstream's schemas as raw JSON and its title where the
// upstream put it.
func TestToolDef(t *testing.T) {
	ct := catalog.Tool{
		Server: "s", Name: "t", Title: "From annotations", Description: "d",
		InputSchema: json.RawMessage(`{"type":"object","x-extra":1}`),
		Raw: json.RawMessage(`{"name":"t","annotations":{"title":"From annotations","readOnlyHint":true},` +
			`"icons":[{"src":"https://example.com/i.png"}],"inputSchema":{"type":"object","x-extra":1}}`),
	}
	def := toolDef("s__t", ct)
	if def.Title != "" || def.Description != "d" || string(rawSchema(def.InputSchema)) != `{"type":"object","x-extra":1}` || def.OutputSchema != nil {
		t.Errorf("def = %+v", def)
	}
	if def.Annotations == nil || !def.Annotations.ReadOnlyHint || def.Annotations.Title != "From annotations" {
		t.Errorf("annotations = %+v", def.Annotations)
	}
	if len(def.Icons) != 1 || def.Icons[0].Source != "https://example.com/i.png" {
		t.Errorf("icons = %+v", def.Icons)
	}
}
