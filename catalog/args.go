// A tool's arguments: the words after `mcp call SERVER.TOOL` become a JSON
// arguments object, key=value coerced by the tool's input schema (its
// model, model.go), and the result is checked against that schema
// (schema.go) before anything is sent.
//
//	key=value    a literal that is valid JSON of a type the property allows
//	             other than string (number, boolean, array, object) is sent
//	             as that JSON; anything else is a string when the property
//	             takes strings. A property that takes no string also reads
//	             True/False and numbers such as .5. Repeating a key whose
//	             property is an array appends to it.
//	key=null     null where the property allows it; left out where it is
//	             optional (or has a default); an error where it is required.
//	key:=JSON    the value is raw JSON, sent as written.
//
// A null in key:=JSON or --args (or in the arguments of mcp run and mcp
// serve) for a property that does not allow it and need not be given is
// left out too, and so is one for an optional property, not allowing
// null, of an object at any depth of a value (omitNulls).

package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/shell"
)

// MaxArgsSize bounds an arguments object built from any source.
const MaxArgsSize = 16 << 20

// ArgError is a malformed argument; the CLI reports it with exit 2.
type ArgError struct {
	Arg string // the word as given (values are not repeated back when long)
	Msg string
	// Want is the type the argument's property takes ("integer",
	// "number", "boolean") when the value is not one; empty for a word
	// that is no key=value.
	Want string `json:",omitempty"`
	// Try is the word written as it would be taken, when there is one:
	// path=/etc/hosts for a bare /etc/hosts, maxCount=10 for maxCount=abc.
	Try string `json:",omitempty"`
}

func (e *ArgError) Error() string {
	if e.Arg == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Arg, e.Msg)
}

func (e *ArgError) ExitCode() int { return exit.Usage }

// BuildArgs merges base (a JSON object or nil) with key=value and key:=JSON
// pairs, later pairs winning, and returns the JSON object.
func BuildArgs(schema json.RawMessage, base json.RawMessage, pairs []string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	var order []string
	if len(bytes.TrimSpace(base)) > 0 {
		if err := decodeObject(base, &obj, &order); err != nil {
			return nil, err
		}
	}
	m := models.get(schema)
	appended := map[string]bool{}
	for i, p := range pairs {
		key, val, raw, err := split(p)
		if err != nil {
			return nil, withTry(err, m.positional(p, obj, pairs[i+1:]))
		}
		var v json.RawMessage
		if raw {
			if !json.Valid([]byte(val)) {
				return nil, &ArgError{Arg: key + ":=", Msg: "value is not valid JSON"}
			}
			v = compact(val)
		} else {
			ps := m.field(key)
			if val == "null" && ps != nil && !ps.allows("null") {
				if m.needed(key) {
					return nil, &ArgError{Arg: key, Msg: "null is not allowed: the argument is required"}
				}
				delete(obj, key)
				order = dropKey(order, key)
				continue
			}
			switch {
			case ps.isArray() && appended[key]:
				v, err = appendItem(obj[key], ps, key, val)
			case ps.isArray() && !strings.HasPrefix(strings.TrimSpace(val), "["):
				v, err = appendItem(nil, ps, key, val)
			default:
				v, err = coerce(ps, key, val)
			}
			if err != nil {
				return nil, err
			}
			appended[key] = ps.isArray()
		}
		if _, seen := obj[key]; !seen {
			order = append(order, key)
		}
		obj[key] = v
	}
	omitNulls(m, obj, &order)
	return encodeObject(obj, order), nil
}

// split parses "key=value" or "key:=JSON".
func split(p string) (key, val string, raw bool, err error) {
	i := strings.IndexByte(p, '=')
	if i < 0 {
		return "", "", false, &ArgError{Arg: clip.Runes(p, 41), Msg: "expected key=value or key:=JSON"}
	}
	key, val = p[:i], p[i+1:]
	if strings.HasSuffix(key, ":") {
		key, raw = key[:len(key)-1], true
	}
	if key == "" {
		return "", "", false, &ArgError{Arg: clip.Runes(p, 41), Msg: "the key before = is empty"}
	}
	return key, val, raw, nil
}

var (
	jsonInt    = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// coerce turns one value into JSON according to the property's model
// (nil: a key the schema does not declare, which takes the text as it is).
func coerce(ps *prop, key, val string) (json.RawMessage, error) {
	if ps == nil {
		return quote(val), nil
	}
	if v, t, ok := literal(val); ok && t != "string" && ps.allows(t) {
		return v, nil
	}
	if ps.allows("string") || ps.unknownType() {
		return quote(val), nil
	}
	var firstErr error
	for _, t := range ps.types {
		v, err := coerceAs(t, key, val)
		if err == nil {
			return v, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if ae, ok := firstErr.(*ArgError); ok && ae.Want != "" {
		ae.Try = key + "=" + example(ps, ae.Want)
	}
	return nil, firstErr
}

// example is a value of type t for a property: its default where that is
// one, else a plain one.
func example(ps *prop, t string) string {
	if ps.def != nil {
		if v, got, ok := literal(fmt.Sprint(*ps.def)); ok && (got == t || t == "number" && got == "integer") {
			return string(v)
		}
	}
	if t == "boolean" {
		return "true"
	}
	n := 10.0
	if ps.hi != nil && n > *ps.hi {
		n = math.Floor(*ps.hi)
	}
	if ps.lo != nil && n < *ps.lo {
		n = math.Ceil(*ps.lo)
	}
	return strconv.FormatFloat(n, 'f', -1, 64)
}

// positional is word (a bare value, no key=value) as the value of the
// parameter it most likely is: the first required one not given (in
// obj or in the pairs after it), else the first required one, else the
// tool's only parameter; empty when there is none.
func (m *model) positional(word string, obj map[string]json.RawMessage, rest []string) string {
	if m == nil || m.root == nil || strings.Contains(word, "=") {
		return ""
	}
	given := func(k string) bool {
		if _, ok := obj[k]; ok {
			return true
		}
		for _, p := range rest {
			if strings.HasPrefix(p, k+"=") || strings.HasPrefix(p, k+":=") {
				return true
			}
		}
		return false
	}
	var first, name string
	for _, k := range m.root.required {
		if !m.needed(k) {
			continue
		}
		if first == "" {
			first = k
		}
		if !given(k) {
			name = k
			break
		}
	}
	if name == "" {
		name = first
	}
	if name == "" && len(m.root.fields) == 1 {
		for k := range m.root.fields {
			name = k
		}
	}
	if name == "" {
		return ""
	}
	return name + "=" + shell.Word(clip.Runes(word, 61))
}

// withTry sets the Try of an *ArgError.
func withTry(err error, try string) error {
	if ae, ok := err.(*ArgError); ok && try != "" {
		ae.Try = try
	}
	return err
}

// literal reads val as one JSON value and says its type ("integer" for a
// number without fraction or exponent). Only arrays and objects may have
// space around them.
func literal(val string) (json.RawMessage, string, bool) {
	v := strings.TrimSpace(val)
	if v == "" || !json.Valid([]byte(v)) {
		return nil, "", false
	}
	switch c := v[0]; {
	case c == '[':
		return compact(v), "array", true
	case c == '{':
		return compact(v), "object", true
	case v != val:
		return nil, "", false
	case c == '"':
		return nil, "string", true
	case v == "true" || v == "false":
		return json.RawMessage(v), "boolean", true
	case v == "null":
		return json.RawMessage(v), "null", true
	case jsonInt.MatchString(v):
		return json.RawMessage(v), "integer", true
	}
	return json.RawMessage(v), "number", true
}

// omitNulls leaves out of obj the nulls of properties that do not allow
// null and need not be given, at any depth: a top-level property that is
// optional or has a default, and in the objects an argument holds (in its
// own properties, its arrays' items, and theirs) a property that is not
// required.
func omitNulls(m *model, obj map[string]json.RawMessage, order *[]string) {
	for k, v := range obj {
		ps := m.field(k)
		if ps == nil {
			continue
		}
		if !isNull(v) {
			obj[k] = pruneNulls(ps, v)
			continue
		}
		if ps.allows("null") || m.needed(k) {
			continue
		}
		delete(obj, k)
		*order = dropKey(*order, k)
	}
}

// pruneNulls is v (a value of property p) less the nulls of the optional
// properties, not allowing null, of the objects inside it. A value with
// no null in it, or that does not parse, is returned as it is.
func pruneNulls(p *prop, v json.RawMessage) json.RawMessage {
	if p == nil || !bytes.Contains(v, []byte("null")) {
		return v
	}
	t := bytes.TrimSpace(v)
	switch {
	case len(t) > 0 && t[0] == '{' && p.fields != nil:
		obj := map[string]json.RawMessage{}
		var order []string
		if decodeObject(t, &obj, &order) != nil {
			return v
		}
		kept := order[:0:0]
		for _, k := range order {
			f := p.fields[k]
			if f != nil && isNull(obj[k]) && !f.allows("null") && !contains(p.required, k) {
				continue
			}
			obj[k] = pruneNulls(f, obj[k])
			kept = append(kept, k)
		}
		return encodeObject(obj, kept)
	case len(t) > 0 && t[0] == '[' && p.items != nil:
		var items []json.RawMessage
		if json.Unmarshal(t, &items) != nil {
			return v
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(pruneNulls(p.items, it))
		}
		b.WriteByte(']')
		return b.Bytes()
	}
	return v
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func dropKey(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func coerceAs(t, key, val string) (json.RawMessage, error) {
	switch t {
	case "string":
		return quote(val), nil
	case "integer":
		if jsonInt.MatchString(val) {
			return json.RawMessage(val), nil
		}
		return nil, &ArgError{Arg: key, Msg: fmt.Sprintf("expected an integer, got %q", clip.Runes(val, 41)), Want: t}
	case "number":
		if jsonNumber.MatchString(val) {
			return json.RawMessage(val), nil
		}
		if f, err := strconv.ParseFloat(val, 64); err == nil && !strings.ContainsAny(val, "xXpP_") && finite(f) {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return nil, &ArgError{Arg: key, Msg: fmt.Sprintf("expected a number, got %q", clip.Runes(val, 41)), Want: t}
	case "boolean":
		switch strings.ToLower(val) {
		case "true":
			return json.RawMessage("true"), nil
		case "false":
			return json.RawMessage("false"), nil
		}
		return nil, &ArgError{Arg: key, Msg: fmt.Sprintf("expected true or false, got %q", clip.Runes(val, 41)), Want: t}
	case "null":
		if val == "null" {
			return json.RawMessage("null"), nil
		}
		return nil, &ArgError{Arg: key, Msg: fmt.Sprintf("expected null, got %q", clip.Runes(val, 41))}
	case "array":
		if v := strings.TrimSpace(val); strings.HasPrefix(v, "[") {
			if json.Valid([]byte(v)) {
				return compact(v), nil
			}
			return nil, &ArgError{Arg: key, Msg: "value starts with [ but is not a valid JSON array"}
		}
		return nil, &ArgError{Arg: key, Msg: "expected a JSON array (or repeat the key once per item)"}
	case "object":
		if v := strings.TrimSpace(val); strings.HasPrefix(v, "{") && json.Valid([]byte(v)) {
			return compact(v), nil
		}
		return nil, &ArgError{Arg: key, Msg: fmt.Sprintf("expected a JSON object; write %s:='{...}'", key)}
	}
	// A type this program does not know: pass the text through.
	return quote(val), nil
}

func finite(f float64) bool { return f-f == 0 }

// appendItem adds one more item to an array built from repeated keys.
func appendItem(cur json.RawMessage, ps *prop, key, val string) (json.RawMessage, error) {
	var items []json.RawMessage
	if cur != nil {
		if err := json.Unmarshal(cur, &items); err != nil {
			items = []json.RawMessage{cur}
		}
	}
	it := ps.items
	if it == nil {
		it = &prop{anyType: true}
	}
	item, err := coerce(it, key, val)
	if err != nil {
		return nil, err
	}
	items = append(items, item)
	b, _ := json.Marshal(items)
	return b, nil
}

func quote(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func compact(s string) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return buf.Bytes()
}

func decodeObject(data []byte, obj *map[string]json.RawMessage, order *[]string) error {
	if len(data) > MaxArgsSize {
		return &ArgError{Arg: "--args", Msg: fmt.Sprintf("arguments are larger than %d MiB", MaxArgsSize>>20)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return &ArgError{Arg: "--args", Msg: "expected a JSON object"}
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return &ArgError{Arg: "--args", Msg: "invalid JSON: " + err.Error()}
		}
		k := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return &ArgError{Arg: "--args", Msg: "invalid JSON: " + err.Error()}
		}
		if _, seen := (*obj)[k]; !seen {
			*order = append(*order, k)
		}
		(*obj)[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return &ArgError{Arg: "--args", Msg: "invalid JSON: " + err.Error()}
	}
	if dec.More() {
		return &ArgError{Arg: "--args", Msg: "trailing data after the JSON object"}
	}
	if _, err := dec.Token(); err == nil {
		return &ArgError{Arg: "--args", Msg: "trailing data after the JSON object"}
	}
	return nil
}

func encodeObject(obj map[string]json.RawMessage, order []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quote(k))
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}
