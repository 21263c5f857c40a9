package callargs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpsh/mcp/catalog"
)

type propSchema struct {
	types []string
	items *propSchema
}

func (p propSchema) isArray() bool { return len(p.types) > 0 && p.types[0] == "array" }

func properties(schema json.RawMessage) map[string]propSchema {
	out := map[string]propSchema{}
	for _, p := range catalog.Params(schema) {
		out[p.Name] = propSchema{types: p.Types, items: &propSchema{types: p.ItemTypes}}
	}
	return out
}

// InvalidError says the arguments do not fit the tool's input schema.
type InvalidError struct {
	Missing  []string // required arguments not given
	Problems []string // other violations, one line each
}

func (e *InvalidError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "missing required argument "+strings.Join(e.Missing, ", "))
	}
	parts = append(parts, e.Problems...)
	return strings.Join(parts, "; ")
}

// maxProblems is how many violations an InvalidError lists by name.
const maxProblems = 8

// Validate checks args against the tool's input schema. Schemas of draft
// 2020-12 (the default when $schema is absent) and draft-07 are checked. A
// schema that cannot be checked here (another draft, a $ref to a document
// elsewhere, references that loop) is let through: the server still
// validates what it receives. Nothing is ever fetched.
func Validate(schema, args json.RawMessage) error {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(args, &given); err != nil {
		return &UsageError{Msg: "arguments must be a JSON object"}
	}
	var missing []string
	for _, p := range catalog.Params(schema) {
		if _, ok := given[p.Name]; p.Required && !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return &InvalidError{Missing: missing}
	}
	root, rs, err := compile(schema)
	if err != nil {
		return nil
	}
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		// Valid JSON that does not fit Go's numbers (1e999): leave it to the server.
		return nil
	}
	if err := check(rs, inst); failed(err) {
		return &InvalidError{Problems: leaves(root, inst, err)}
	}
	return nil
}

// drafts maps each accepted $schema, without a trailing #, to the spelling
// the validator recognises.
var drafts = map[string]string{
	"": "",
	"https://json-schema.org/draft/2020-12/schema": "https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft/2020-12/schema":  "https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema":       "http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema":      "http://json-schema.org/draft-07/schema#",
}

var errNotChecked = errors.New("the schema cannot be checked here")

// compile parses and resolves schema, refusing drafts the validator does not
// know, references to other documents, and references that loop.
func compile(schema json.RawMessage) (*jsonschema.Schema, *jsonschema.Resolved, error) {
	if err := walkable(schema); err != nil {
		return nil, nil, err
	}
	root := new(jsonschema.Schema)
	if err := json.Unmarshal(schema, root); err != nil {
		return nil, nil, err
	}
	draft, ok := drafts[strings.TrimSuffix(strings.TrimSpace(root.Schema), "#")]
	if !ok {
		return nil, nil, fmt.Errorf("%w: unknown $schema %q", errNotChecked, root.Schema)
	}
	root.Schema = draft
	rs, err := resolve(root)
	if err != nil {
		return nil, nil, err
	}
	return root, rs, nil
}

// resolve and check turn a panic of the validator into errNotChecked: it
// asserts its own invariants that way, and a schema that trips one is left
// to the server rather than ending the process.
func resolve(s *jsonschema.Schema) (rs *jsonschema.Resolved, err error) {
	defer func() {
		if r := recover(); r != nil {
			rs, err = nil, fmt.Errorf("%w: %v", errNotChecked, r)
		}
	}()
	return s.Resolve(&jsonschema.ResolveOptions{Loader: noLoad})
}

// noLoad refuses every schema outside the tool's own.
func noLoad(u *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("%w: schemas are not loaded from %s", errNotChecked, u)
}

func check(rs *jsonschema.Resolved, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errNotChecked, r)
		}
	}()
	return rs.Validate(inst)
}

func failed(err error) bool { return err != nil && !errors.Is(err, errNotChecked) }

// leaves turns a failed validation into one line per problem, each led by
// the location in the arguments it concerns.
//
// The validator stops at the first failure and names the schema, not the
// arguments, where it failed. So each argument is checked on its own
// against the schema's properties, which finds the first problem of every
// argument; then the whole object is checked with its properties taken as
// given, which finds a problem of the object as a whole (a combination the
// schema forbids, say). Within one argument only its first problem is
// named.
func leaves(root *jsonschema.Schema, inst any, whole error) []string {
	var out []string
	args, _ := inst.(map[string]any)
	if root.Ref != "" && root.Schema == drafts["http://json-schema.org/draft-07/schema"] {
		args = nil // draft-07 ignores the keywords beside a $ref
	}
	if rs, err := resolve(oneArgument(root)); err == nil && args != nil {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := check(rs, map[string]any{k: args[k]}); failed(err) {
				out = append(out, line("/"+escapePointer(k), err))
			}
		}
	}
	if rs, err := resolve(objectOnly(root)); err == nil {
		if err := check(rs, inst); failed(err) {
			out = append(out, line("/", err))
		}
	}
	if len(out) == 0 {
		out = append(out, line("/", whole))
	}
	sort.Strings(out)
	if len(out) > maxProblems {
		out = append(out[:maxProblems], fmt.Sprintf("and %d more", len(out)-maxProblems))
	}
	return out
}

// oneArgument is root reduced to what applies to each property on its own:
// properties, patternProperties and additionalProperties. Definitions and
// identifiers stay so that references still resolve.
func oneArgument(root *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{
		ID:                   root.ID,
		Schema:               root.Schema,
		Anchor:               root.Anchor,
		DynamicAnchor:        root.DynamicAnchor,
		Defs:                 root.Defs,
		Definitions:          root.Definitions,
		Properties:           root.Properties,
		PatternProperties:    root.PatternProperties,
		AdditionalProperties: root.AdditionalProperties,
	}
}

// objectOnly is root with every property schema replaced by one that
// accepts anything, so that only rules about the object as a whole remain.
func objectOnly(root *jsonschema.Schema) *jsonschema.Schema {
	s := *root
	s.Properties = anything(root.Properties)
	s.PatternProperties = anything(root.PatternProperties)
	if s.AdditionalProperties != nil {
		s.AdditionalProperties = &jsonschema.Schema{}
	}
	return &s
}

func anything(m map[string]*jsonschema.Schema) map[string]*jsonschema.Schema {
	if m == nil {
		return nil
	}
	out := make(map[string]*jsonschema.Schema, len(m))
	for k := range m {
		out[k] = &jsonschema.Schema{}
	}
	return out
}

// maxLine bounds one problem line; the validator quotes values whole.
const maxLine = 160

// line is "location: message", where message is the validator's innermost
// error: the failed keyword and why, without the chain of schemas above it.
func line(loc string, err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if utf8.RuneCountInString(msg) > maxLine {
		r := []rune(msg)
		msg = string(r[:maxLine]) + "…"
	}
	return loc + ": " + msg
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(s string) string { return pointerEscaper.Replace(s) }
