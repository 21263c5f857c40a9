package catalog

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const schema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "query": {"type": "string"},
    "limit": {"type": "integer", "minimum": 1},
    "ratio": {"type": "number"},
    "exact": {"type": "boolean"},
    "tags":  {"type": "array", "items": {"type": "string"}},
    "ids":   {"type": "array", "items": {"type": "integer"}},
    "filter": {"type": "object"},
    "maybe": {"type": ["integer", "null"]},
    "either": {"anyOf": [{"type": "boolean"}, {"type": "string"}]}
  },
  "required": ["query"],
  "additionalProperties": false
}`

func TestBuild_Coercion(t *testing.T) {
	cases := []struct {
		pairs []string
		want  string
	}{
		{[]string{"query=Ada Lovelace"}, `{"query":"Ada Lovelace"}`},
		{[]string{"query=42"}, `{"query":"42"}`}, // a string stays a string
		{[]string{"query=true"}, `{"query":"true"}`},
		{[]string{"query=a=b"}, `{"query":"a=b"}`},
		{[]string{"query="}, `{"query":""}`},
		{[]string{"limit=3"}, `{"limit":3}`},
		{[]string{"limit=123456789012345678901234567890"}, `{"limit":123456789012345678901234567890}`},
		{[]string{"ratio=0.5"}, `{"ratio":0.5}`},
		{[]string{"ratio=.5"}, `{"ratio":0.5}`},
		{[]string{"exact=true"}, `{"exact":true}`},
		{[]string{"exact=False"}, `{"exact":false}`},
		{[]string{"tags=[\"a\",\"b\"]"}, `{"tags":["a","b"]}`},
		{[]string{"tags=a", "tags=b"}, `{"tags":["a","b"]}`},
		{[]string{"ids=1", "ids=2"}, `{"ids":[1,2]}`},
		{[]string{"filter={\"x\": 1}"}, `{"filter":{"x":1}}`},
		{[]string{"maybe=null"}, `{"maybe":null}`},
		{[]string{"maybe=7"}, `{"maybe":7}`},
		{[]string{"either=true"}, `{"either":true}`},
		{[]string{"either=yes"}, `{"either":"yes"}`},
		{[]string{"unknown=5"}, `{"unknown":"5"}`}, // no schema: a string
		{[]string{"limit:=3"}, `{"limit":3}`},
		{[]string{"query:=\"x\"", "limit:=[1, 2]"}, `{"query":"x","limit":[1,2]}`},
		{[]string{"query=a", "query=b"}, `{"query":"b"}`}, // later wins
		{[]string{"emoji=héllo ☃"}, `{"emoji":"héllo ☃"}`},
		{[]string{"html=<b>&"}, `{"html":"<b>&"}`},
	}
	for _, c := range cases {
		got, err := BuildArgs(json.RawMessage(schema), nil, c.pairs)
		if err != nil {
			t.Errorf("BuildArgs(%q): %v", c.pairs, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("BuildArgs(%q) = %s, want %s", c.pairs, got, c.want)
		}
	}
}

func TestBuild_BaseAndOverride(t *testing.T) {
	got, err := BuildArgs(json.RawMessage(schema), json.RawMessage(`{"query":"x","limit":1,"big":12345678901234567890}`), []string{"limit=5"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"query":"x","limit":5,"big":12345678901234567890}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestBuild_Errors(t *testing.T) {
	cases := []struct {
		base  string
		pairs []string
		want  string
	}{
		{"", []string{"novalue"}, "expected key=value"},
		{"", []string{"=x"}, "key before = is empty"},
		{"", []string{"limit=abc"}, "expected an integer"},
		{"", []string{"limit=1.5"}, "expected an integer"},
		{"", []string{"ratio=NaN"}, "expected a number"},
		{"", []string{"ratio=0x10"}, "expected a number"},
		{"", []string{"exact=yes"}, "expected true or false"},
		{"", []string{"tags=[1,"}, "not a valid JSON array"},
		{"", []string{"filter=x"}, "expected a JSON object"},
		{"", []string{"limit:={"}, "not valid JSON"},
		{"[1]", nil, "expected a JSON object"},
		{`{"a":1} {"b":2}`, nil, "trailing data"},
		{`{"a":`, nil, "invalid JSON"},
	}
	for _, c := range cases {
		_, err := BuildArgs(json.RawMessage(schema), json.RawMessage(c.base), c.pairs)
		var ue *ArgError
		if !errors.As(err, &ue) {
			t.Errorf("BuildArgs(%q, %q): err = %v, want a ArgError", c.base, c.pairs, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("BuildArgs(%q, %q): %q does not contain %q", c.base, c.pairs, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	s := json.RawMessage(schema)
	if err := ValidateArgs(s, json.RawMessage(`{"query":"x","limit":2}`)); err != nil {
		t.Errorf("valid args refused: %v", err)
	}
	var ie *InvalidArgsError
	err := ValidateArgs(s, json.RawMessage(`{"limit":2}`))
	if !errors.As(err, &ie) || len(ie.Missing) != 1 || ie.Missing[0] != "query" {
		t.Errorf("missing required: got %v", err)
	}
	err = ValidateArgs(s, json.RawMessage(`{"query":"x","limit":0}`))
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "/limit") {
		t.Errorf("minimum: got %v", err)
	}
	err = ValidateArgs(s, json.RawMessage(`{"query":"x","nope":1}`))
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("additionalProperties: got %v", err)
	}
	// A schema that refers elsewhere is not fetched: validation is left to the server.
	remote := json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)
	if err := ValidateArgs(remote, json.RawMessage(`{"a":1}`)); err != nil {
		t.Errorf("remote ref: %v", err)
	}
	if err := ValidateArgs(nil, json.RawMessage(`{"a":1}`)); err != nil {
		t.Errorf("no schema: %v", err)
	}
}

func FuzzBuild(f *testing.F) {
	f.Add(schema, `{"query":"x"}`, "limit=3", "tags=a")
	f.Add(`{"type":"object"}`, "", "a:=[1,2]", "b=")
	f.Add(`{"properties":{"x":{"type":["array","object"],"items":{"type":"number"}}}}`, "", "x=1", "x=2")
	f.Add(`not json`, `{`, "=", ":=")
	f.Add(`{"properties":{"d":{"type":"array","items":{"type":"object","properties":{"g":{"type":"string"},"o":{"type":"object","properties":{"n":{"type":"number"}}}}}}}}`,
		`{"d":[{"g":null,"o":{"n":null}}, null]}`, `d={"g":null}`, `d:=[{"o":{"n":null},"g":"null"}]`)
	f.Fuzz(func(t *testing.T, schema, base, p1, p2 string) {
		out, err := BuildArgs(json.RawMessage(schema), json.RawMessage(base), []string{p1, p2})
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Build produced invalid JSON %q", out)
		}
		_ = ValidateArgs(json.RawMessage(schema), out)
	})
}

// FuzzValidate: no schema and no arguments make Validate panic or hang,
// and every problem it reports is one line.
func FuzzValidate(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"type":"object","properties":{"limit":{"type":"integer","minimum":1}},"required":["limit"]}`, `{"limit":0}`},
		{`{"$ref":"#"}`, `{}`},
		{`{"type":"object","additionalProperties":false}`, `{"x":1}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"}`, `{}`},
		{`{"anyOf":[{"type":"string"},{"type":"object"}]}`, `null`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		err := ValidateArgs(json.RawMessage(schema), json.RawMessage(args))
		var ie *InvalidArgsError
		if errors.As(err, &ie) {
			for _, p := range ie.Problems {
				if strings.ContainsAny(p, "\r\n") {
					t.Fatalf("a problem spans lines: %q", p)
				}
			}
		}
	})
}
