package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpsh/mcp/internal/exit"
)

// InvalidArgsError says the arguments do not fit the tool's input schema.
type InvalidArgsError struct {
	Missing  []string // required arguments not given
	Problems []string // other violations, one line each
	// Signature is the tool's, as SERVER.TOOL(...), when the caller knows
	// the tool.
	Signature string `json:",omitempty"`
}

func (e *InvalidArgsError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "missing required argument "+strings.Join(e.Missing, ", "))
	}
	parts = append(parts, e.Problems...)
	return strings.Join(parts, "; ")
}

func (e *InvalidArgsError) ExitCode() int { return exit.Usage }

// PrepareArgs is what every verb does with a call's arguments before it
// is sent (mcp call, mcp run and mcp serve alike): base (a JSON object or
// nil) and key=value pairs built into one object by the tool's input
// schema (BuildArgs), keys the schema does not declare refused
// (CheckKnown) unless allowUnknown sends them unchecked, and the rest
// validated against the schema (ValidateArgs).
func PrepareArgs(schema, base json.RawMessage, pairs []string, allowUnknown bool) (json.RawMessage, error) {
	args, err := BuildArgs(schema, base, pairs)
	if err != nil {
		return nil, err
	}
	checked := args
	if allowUnknown {
		checked = WithoutUnknown(schema, args)
	} else if err := CheckKnown(schema, args); err != nil {
		return nil, err
	}
	if err := ValidateArgs(schema, checked); err != nil {
		return nil, err
	}
	return args, nil
}

// ValidateArgs checks args against the tool's input schema, compiled the
// first time it is seen. A schema that cannot be compiled here (a remote
// $ref, an unknown draft) is not checked: the server still validates what
// it receives. A required property with a default need not be given: the
// server fills it in.
func ValidateArgs(schema, args json.RawMessage) error {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(args, &given); err != nil {
		return &InvalidArgsError{Problems: []string{"arguments must be a JSON object"}}
	}
	m := models.get(schema)
	var missing []string
	for _, p := range Params(schema) {
		if _, ok := given[p.Name]; p.Required && !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return &InvalidArgsError{Missing: missing}
	}
	if m.schema == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &InvalidArgsError{Problems: []string{"arguments are not valid JSON"}}
	}
	var ve *jsonschema.ValidationError
	if err := m.schema.Validate(inst); errors.As(err, &ve) {
		if problems := leaves(ve, m); len(problems) > 0 {
			return &InvalidArgsError{Problems: problems}
		}
	}
	return nil
}

var printer = message.NewPrinter(language.English)

// leaves flattens a validation error tree into one line per failed
// keyword, less the root's required properties that have a default.
func leaves(ve *jsonschema.ValidationError, m *model) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		loc := "/" + strings.Join(e.InstanceLocation, "/")
		if line, ok := alternatives(e); ok {
			out = append(out, loc+": "+line)
			return
		}
		if len(e.Causes) == 0 {
			if r, ok := e.ErrorKind.(*kind.Required); ok && len(e.InstanceLocation) == 0 {
				r.Missing = slices.DeleteFunc(slices.Clone(r.Missing), func(k string) bool { return !m.needed(k) })
				if len(r.Missing) == 0 {
					return
				}
			}
			line := e.ErrorKind.LocalizedString(printer)
			if en, ok := e.ErrorKind.(*kind.Enum); ok {
				line = valuesLine(en.Want, nil)
			}
			out = append(out, loc+": "+line)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("and %d more", len(out)-8))
	}
	return out
}

// alternatives is the one line of an anyOf or oneOf each branch of which
// refused the value by its type or its values alone, as a nullable enum
// does ({enum}, {type: null}): "value must be one of 'light', 'dark' or
// null" or "got number, want string or null" rather than a line a
// branch. ok is false for any other error.
func alternatives(e *jsonschema.ValidationError) (line string, ok bool) {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
	default:
		return "", false
	}
	var values []any
	var types []string
	typeErr := &kind.Type{}
	for _, c := range e.Causes {
		if len(c.Causes) > 0 || !slices.Equal(c.InstanceLocation, e.InstanceLocation) {
			return "", false
		}
		switch k := c.ErrorKind.(type) {
		case *kind.Enum:
			values = append(values, k.Want...)
		case *kind.Const:
			values = append(values, k.Want)
		case *kind.Type:
			typeErr.Got = k.Got
			for _, t := range k.Want {
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
			}
		default:
			return "", false
		}
	}
	switch {
	case len(values) > 0 && (len(types) == 0 || slices.Equal(types, []string{"null"})):
		return valuesLine(values, types), true
	case len(values) == 0 && len(types) > 0:
		typeErr.Want = types
		if i := slices.Index(types, "null"); i >= 0 { // null last, as the signature has it
			typeErr.Want = append(slices.Delete(slices.Clone(types), i, i+1), "null")
		}
		return typeErr.LocalizedString(printer), true
	}
	return "", false
}

// valuesLine says which values are allowed: the library's words, with
// null, when it is one of them (or extra holds it), last: "value must be
// one of 'light', 'dark' or null".
func valuesLine(values []any, extra []string) string {
	null := slices.Contains(extra, "null")
	var rest []any
	for _, v := range values {
		switch v.(type) {
		case nil:
			null = true
		case []any, map[string]any:
			return (&kind.Enum{Want: values}).LocalizedString(printer)
		default:
			rest = append(rest, v)
		}
	}
	switch {
	case !null:
		return (&kind.Enum{Want: rest}).LocalizedString(printer)
	case len(rest) == 0:
		return "value must be null"
	}
	return (&kind.Enum{Want: rest}).LocalizedString(printer) + " or null"
}
