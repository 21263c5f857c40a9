package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestMembers(t *testing.T) {
	for in, want := range map[string]string{
		` {"a" : 1, "b":[1,{"c":"]"}] ,"a":"x\"}" } `: `"a"=1 "b"=[1,{"c":"]"}] "a"="x\"}"`,
		`{}`:        ``,
		`[{"a":1}]`: ``,
		`"{"`:       ``,
		`{"a":`:     ``,
		`{"a":1,`:   `"a"=1`,
	} {
		var got []string
		for name, value := range Members([]byte(in)) {
			got = append(got, string(name)+"="+string(value))
		}
		if s := strings.Join(got, " "); s != want {
			t.Errorf("Members(%s) = %s, want %s", in, s, want)
		}
	}
}

func TestElements(t *testing.T) {
	for in, want := range map[string]string{
		` [ 1 , "]" ,[[]],{"a":[]}, null ] `: `1 "]" [[]] {"a":[]} null`,
		`[]`:                                 ``,
		`{}`:                                 ``,
		`[1,[2`:                              `1`,
	} {
		var got []string
		for e := range Elements([]byte(in)) {
			got = append(got, string(e))
		}
		if s := strings.Join(got, " "); s != want {
			t.Errorf("Elements(%s) = %s, want %s", in, s, want)
		}
	}
}

func TestLiterals(t *testing.T) {
	in := `{"a\"":[1.5e3,true,false,null,"x"],"b":{}}`
	var got []string
	for start, end := range Literals([]byte(in)) {
		got = append(got, in[start:end])
	}
	if s := strings.Join(got, " "); s != `"a\"" 1.5e3 true false null "x" "b"` {
		t.Errorf("Literals(%s) = %s", in, s)
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:          "plain",
		`"\u00e9\n\/\\\""`: "é\n/\\\"",
		`"\ud83d\ude00"`:   "😀",
		`"\ud83d x"`:       "\ufffd x",
		`"\ud83d\u0041"`:   "\ufffdA",
		"\"\xff\"":         "\ufffd",
	} {
		if got, ok := Unquote([]byte(in)); !ok || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`"\x"`, `"\u12"`, "\"\n\"", `"a`, `a"`, `"`} {
		if got, ok := Unquote([]byte(in)); ok {
			t.Errorf("Unquote(%s) = %q, want it refused", in, got)
		}
	}
}

// FuzzUnquote: Unquote reads a string as encoding/json does, and refuses
// what it refuses.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800\udc00"`, `"\ud800"`, "\"\xe9\"", `"\u00e9\t"`, `"\q"`, `null`, ` "a" `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		lit = strings.Trim(lit, " \t\r\n") // encoding/json takes white space around a value
		var want string
		err := json.Unmarshal([]byte(lit), &want)
		if lit == "null" {
			return // decodes into a string as no change
		}
		got, ok := Unquote([]byte(lit))
		if ok != (err == nil) || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json: %q, %v", lit, got, ok, want, err)
		}
	})
}

// FuzzWalk: of any valid JSON text, Members, Elements and Literals walk
// the values a json.Decoder reads, in its order.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"}"}],"c":null}`, `[[],{},"\"]",-0.5e+3]`, ` true `, `"\u00e9"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) {
			for range Literals([]byte(text)) {
			}
			for range Members([]byte(text)) {
			}
			return
		}
		want := decoderTokens(t, text)
		var got []string
		walk([]byte(text), &got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s: walked %q, a decoder reads %q", text, got, want)
		}
		var lits []string
		for start, end := range Literals([]byte(text)) {
			lits = append(lits, literal(t, []byte(text[start:end])))
		}
		var scalars []string
		for _, tok := range want {
			if !strings.ContainsAny(tok[:1], "{}[]") {
				scalars = append(scalars, tok)
			}
		}
		if strings.Join(lits, " ") != strings.Join(scalars, " ") {
			t.Fatalf("%s: literals %q, a decoder reads %q", text, lits, scalars)
		}
	})
}

// walk appends the tokens of v as decoderTokens names them.
func walk(v []byte, out *[]string) {
	v = bytes.TrimLeft(v, " \t\r\n")
	switch {
	case v[0] == '{':
		*out = append(*out, "{")
		for name, value := range Members(v) {
			s, _ := Unquote(name)
			*out = append(*out, fmt.Sprintf("%q", s))
			walk(value, out)
		}
		*out = append(*out, "}")
	case v[0] == '[':
		*out = append(*out, "[")
		for e := range Elements(v) {
			walk(e, out)
		}
		*out = append(*out, "]")
	default:
		*out = append(*out, literal(nil, bytes.TrimRight(v, " \t\r\n")))
	}
}

func literal(t *testing.T, lit []byte) string {
	if lit[0] == '"' {
		s, ok := Unquote(lit)
		if !ok && t != nil {
			t.Fatalf("Unquote(%s) refused", lit)
		}
		return fmt.Sprintf("%q", s)
	}
	return string(lit)
}

func decoderTokens(t *testing.T, text string) []string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var toks []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return toks
		}
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		switch v := tok.(type) {
		case json.Delim:
			toks = append(toks, v.String())
		case string:
			toks = append(toks, fmt.Sprintf("%q", v))
		case nil:
			toks = append(toks, "null")
		default:
			toks = append(toks, fmt.Sprint(v))
		}
	}
}
