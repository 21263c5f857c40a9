package callargs

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	s := json.RawMessage(schema)
	if err := Validate(s, json.RawMessage(`{"query":"x","limit":2,"tags":["a"],"maybe":null,"either":"y"}`)); err != nil {
		t.Errorf("valid args refused: %v", err)
	}
	var ie *InvalidError
	err := Validate(s, json.RawMessage(`{"limit":0}`))
	if !errors.As(err, &ie) || !cmp.Equal(ie.Missing, []string{"query"}) || len(ie.Problems) != 0 {
		t.Errorf("missing required first: got %#v", err)
	}
	if err := Validate(s, json.RawMessage(`[1]`)); err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Errorf("array args: got %v", err)
	}
	if err := Validate(nil, json.RawMessage(`{"a":1}`)); err != nil {
		t.Errorf("no schema: %v", err)
	}
	err = Validate(s, json.RawMessage(`{"query":"x","limit":0}`))
	if want := "/limit: minimum: 0/1 is less than 1.000000"; err == nil || err.Error() != want {
		t.Errorf("minimum: got %v, want %s", err, want)
	}
}

// The messages are the validator's own; these tests pin them so that an
// upgrade that changes them is noticed.
func TestValidate_Problems(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []string
	}{
		{"one per argument, sorted", schema,
			`{"query":"x","ratio":"b","limit":"a","exact":1}`,
			[]string{
				`/exact: type: 1 has type "integer", want "boolean"`,
				`/limit: type: a has type "string", want "integer"`,
				`/ratio: type: b has type "string", want "number"`,
			}},
		{"unknown arguments", schema, `{"query":"x","zz":2,"nope":1}`,
			[]string{
				`/nope: unexpected additional properties ["nope"]`,
				`/zz: unexpected additional properties ["zz"]`,
			}},
		{"capped at eight", schema,
			`{"query":5,"limit":"a","ratio":"b","exact":1,"tags":[1],"ids":["x"],"filter":1,"maybe":"s","either":3,"x":1}`,
			[]string{
				`/either: anyOf: did not validate against any of [<anonymous schema> <anonymous schema>]`,
				`/exact: type: 1 has type "integer", want "boolean"`,
				`/filter: type: 1 has type "integer", want "object"`,
				`/ids: type: x has type "string", want "integer"`,
				`/limit: type: a has type "string", want "integer"`,
				`/maybe: type: s has type "string", want one of "integer, null"`,
				`/query: type: 5 has type "integer", want "string"`,
				`/ratio: type: b has type "string", want "number"`,
				"and 2 more",
			}},
		{"enum, pattern and the object as a whole",
			`{"type":"object","properties":{"a":{"enum":["x","y"]},"b":{"type":"string","pattern":"^[a-z]+$"}},"minProperties":3}`,
			`{"a":"z","b":"ABC"}`,
			[]string{
				`/: minProperties: object has 2 properties, less than 3`,
				`/a: enum: z does not equal any of: [x y]`,
				`/b: pattern: "ABC" does not match regular expression "^[a-z]+$"`,
			}},
		{"location escaped as a JSON pointer",
			`{"properties":{"a/b~":{"type":"string"}}}`, `{"a/b~":1}`,
			[]string{`/a~1b~0: type: 1 has type "integer", want "string"`}},
		{"nested problem named at its argument",
			`{"properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
			`{"root":{"kids":[{"kids":[{"name":1}]}]}}`,
			[]string{`/root: type: 1 has type "integer", want "string"`}},
		{"reference to a sibling property",
			`{"properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`, `{"a":"1","b":2}`,
			[]string{`/b: type: 2 has type "integer", want "string"`}},
		{"long values cut",
			`{"properties":{"a":{"type":"string","maxLength":3}}}`, `{"a":"` + strings.Repeat("x", 500) + `"}`,
			[]string{`/a: maxLength: "` + strings.Repeat("x", maxLine-len(`maxLength: "`)) + "…"}},
		{"null for arguments", `{"type":"object"}`, `null`,
			[]string{`/: type: <invalid reflect.Value> has type "null", want "object"`}},
		{"draft-07 root $ref hides its siblings",
			`{"$schema":"` + draft7 + `","$ref":"#/definitions/r","properties":{"a":{"type":"string"}},"definitions":{"r":{"properties":{"b":{"type":"string"}}}}}`,
			`{"a":1,"b":2}`,
			[]string{`/: type: 2 has type "integer", want "string"`}},
		{"schema false", `false`, `{}`,
			[]string{`/: not: validated against <anonymous schema>`}},
		{"numbers beyond 64 bits",
			`{"properties":{"a":{"type":"integer","maximum":10}}}`, `{"a":123456789012345678901234567890}`,
			[]string{`/a: maximum: 123456789012345677877719597056/1 is greater than 10.000000`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(json.RawMessage(tt.schema), json.RawMessage(tt.args))
			var ie *InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InvalidError", err)
			}
			if diff := cmp.Diff(tt.want, ie.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

const (
	draft7    = "http://json-schema.org/draft-07/schema#"
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
)

// Draft-07 ignores the siblings of $ref and reads an items array with
// additionalItems; 2020-12 applies siblings and ignores an items array.
func TestValidate_Drafts(t *testing.T) {
	siblings := `{%s"properties":{"a":{"$ref":"#/definitions/s","maxLength":2}},"definitions":{"s":{"type":"string"}}}`
	tuple := `{%s"properties":{"a":{"items":[{"type":"string"}],"additionalItems":false}}}`
	prefix := `{%s"properties":{"a":{"prefixItems":[{"type":"string"}],"items":false}}}`
	tests := []struct {
		draft, schema, args string
		want                []string // nil: valid
	}{
		{draft7, siblings, `{"a":"abc"}`, nil},
		{"https://json-schema.org/draft-07/schema#", siblings, `{"a":"abc"}`, nil},
		{"http://json-schema.org/draft-07/schema", siblings, `{"a":"abc"}`, nil},
		{draft7, siblings, `{"a":1}`, []string{`/a: type: 1 has type "integer", want "string"`}},
		{draft2020, siblings, `{"a":"abc"}`, []string{`/a: maxLength: "abc" contains 3 Unicode code points, more than 2`}},
		{draft2020 + "#", siblings, `{"a":"abc"}`, []string{`/a: maxLength: "abc" contains 3 Unicode code points, more than 2`}},
		{"", siblings, `{"a":"abc"}`, []string{`/a: maxLength: "abc" contains 3 Unicode code points, more than 2`}},
		{draft7, tuple, `{"a":["x",2]}`, []string{`/a: not: validated against <anonymous schema>`}},
		{draft7, tuple, `{"a":["x"]}`, nil},
		{draft2020, tuple, `{"a":["x",2]}`, nil},
		{draft2020, prefix, `{"a":["x",2]}`, []string{`/a: not: validated against <anonymous schema>`}},
		{"", prefix, `{"a":[1]}`, []string{`/a: type: 1 has type "integer", want "string"`}},
	}
	for _, tt := range tests {
		decl := ""
		if tt.draft != "" {
			decl = fmt.Sprintf(`"$schema":%q,`, tt.draft)
		}
		s := fmt.Sprintf(tt.schema, decl)
		err := Validate(json.RawMessage(s), json.RawMessage(tt.args))
		var got []string
		if ie := (*InvalidError)(nil); errors.As(err, &ie) {
			got = ie.Problems
		} else if err != nil {
			t.Errorf("%s %s: %v", s, tt.args, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", s, tt.args, diff)
		}
	}
}

// fanOut is a schema whose anyOf branches double at each of n levels.
func fanOut(n int) string {
	var b strings.Builder
	b.WriteString(`{"properties":{"a":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

// Schemas that cannot be checked here are let through, whatever the
// arguments, and never crash the process.
func TestValidate_NotChecked(t *testing.T) {
	const loop = "loop"
	tests := []struct {
		name, schema string
		why          string // loop: refused before the validator runs
	}{
		{"remote $ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, ""},
		{"relative $ref", `{"properties":{"a":{"$ref":"other.json#/x"}}}`, ""},
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"string"}}}`, ""},
		{"draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","properties":{"a":{"type":"string"}}}`, ""},
		{"2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"a":{"type":"string"}}}`, ""},
		{"own meta-schema", `{"$schema":"https://example.com/meta","properties":{"a":{"type":"string"}}}`, ""},
		{"boolean exclusiveMinimum", `{"properties":{"a":{"type":"string","exclusiveMinimum":true}}}`, ""},
		{"back-reference in pattern", `{"properties":{"a":{"type":"string","pattern":"(a)\\1"}}}`, ""},
		{"nested $id", `{"properties":{"a":{"$id":"https://example.com/a","type":"string"}}}`, loop},
		{"$ref to itself", `{"$ref":"#"}`, loop},
		{"allOf back to the root", `{"allOf":[{"$ref":"#"}],"properties":{"a":{"type":"string"}}}`, loop},
		{"keywords in other case", `{"ALLOF":[{"$Ref":"#"}],"properties":{"a":{"type":"string"}}}`, loop},
		{"loop under a property", `{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/y"}]},"y":{"not":{"$ref":"#/$defs/x"}}}}`, loop},
		{"if", `{"if":{"$ref":"#"},"properties":{"a":{"type":"string"}}}`, loop},
		{"dependentSchemas", `{"dependentSchemas":{"a":{"$ref":"#"}},"properties":{"a":{"type":"string"}}}`, loop},
		{"draft-07 dependencies", `{"$schema":"` + draft7 + `","dependencies":{"a":{"$ref":"#"}},"properties":{"a":{"type":"string"}}}`, loop},
		{"anchor", `{"properties":{"a":{"$ref":"#A"}},"$defs":{"x":{"$anchor":"A","allOf":[{"$ref":"#A"}]}}}`, loop},
		{"draft-07 anchor", `{"$schema":"` + draft7 + `","properties":{"a":{"$ref":"#A"}},"definitions":{"x":{"$id":"#A","allOf":[{"$ref":"#A"}]}}}`, loop},
		{"dynamic anchor", `{"$dynamicAnchor":"n","$dynamicRef":"#n","properties":{"a":{"type":"string"}}}`, loop},
		{"property named default", `{"properties":{"a":{"$ref":"#/properties/default"},"default":{"allOf":[{"$ref":"#/properties/default"}]}}}`, loop},
		{"escaped pointer", `{"properties":{"a":{"$ref":"#/$defs/a%20b~1c"}},"$defs":{"a b/c":{"allOf":[{"$ref":"#/$defs/a%20b~1c"}]}}}`, loop},
		{"fan-out", fanOut(16), loop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Validate(json.RawMessage(tt.schema), json.RawMessage(`{"a":1}`)); err != nil {
				t.Errorf("Validate = %v, want nil", err)
			}
			_, _, err := compile(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatal("compile succeeded")
			}
			if tt.why == loop && !errors.Is(err, errNotChecked) {
				t.Errorf("compile = %v, want errNotChecked", err)
			}
		})
	}
	// A smaller fan-out is fine.
	err := Validate(json.RawMessage(fanOut(10)), json.RawMessage(`{"a":1}`))
	if err == nil || !strings.HasPrefix(err.Error(), "/a: anyOf:") {
		t.Errorf("fan-out of 10: got %v", err)
	}
	// So are arguments too large for float64: the server judges them.
	if err := Validate(json.RawMessage(`{"properties":{"a":{"type":"string"}}}`), json.RawMessage(`{"a":1e400}`)); err != nil {
		t.Errorf("1e400: %v", err)
	}
}

// Nothing named in a schema is ever fetched.
func TestValidate_NoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()
	for _, s := range []string{
		`{"properties":{"a":{"$ref":"` + srv.URL + `/s.json"}}}`,
		`{"$schema":"` + srv.URL + `/meta","properties":{"a":{"type":"string"}}}`,
		`{"$id":"` + srv.URL + `/root.json","properties":{"a":{"$ref":"s.json"}}}`,
	} {
		if err := Validate(json.RawMessage(s), json.RawMessage(`{"a":1}`)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the schema server was asked %d times", n)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(schema, `{"query":"x","limit":0,"nope":1}`)
	f.Add(`{"$ref":"#"}`, `{}`)
	f.Add(`{"$defs":{"a":{"$anchor":"A","anyOf":[{"$ref":"#A"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `{"x":1}`)
	f.Add(`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[{"type":"string"}],"additionalItems":false,"uniqueItems":true}}}`, `{"a":["x",2,2]}`)
	f.Add(`{"properties":{"a":{"$dynamicRef":"#n","$dynamicAnchor":"n","contains":{"const":1},"minContains":2}}}`, `{"a":[1,{"b":[]}]}`)
	f.Add(`{"patternProperties":{"^x":{"type":"integer"}},"unevaluatedProperties":false,"dependentRequired":{"a":["b"]}}`, `{"x1":"s","a":null}`)
	f.Add(`false`, `null`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		err := Validate(json.RawMessage(schema), json.RawMessage(args))
		var ie *InvalidError
		if !errors.As(err, &ie) {
			return
		}
		if len(ie.Missing) == 0 && len(ie.Problems) == 0 {
			t.Fatal("InvalidError names no problem")
		}
		if len(ie.Problems) > maxProblems+1 {
			t.Fatalf("%d problem lines", len(ie.Problems))
		}
		for _, p := range ie.Problems {
			if strings.ContainsAny(p, "\r\n") || !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "and ") {
				t.Fatalf("problem line %q", p)
			}
		}
	})
}

func BenchmarkValidate(b *testing.B) {
	s, args := json.RawMessage(schema), json.RawMessage(`{"query":"x","limit":2,"tags":["a","b"]}`)
	for b.Loop() {
		if err := Validate(s, args); err != nil {
			b.Fatal(err)
		}
	}
}
