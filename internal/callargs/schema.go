package callargs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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

// Validate checks args against the tool's input schema. A schema that cannot
// be compiled here (a remote $ref, an unknown draft) is not checked: the
// server still validates what it receives.
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
	sch, err := compile(schema)
	if err != nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &UsageError{Msg: "arguments are not valid JSON"}
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(inst); errors.As(err, &ve) {
		return &InvalidError{Problems: leaves(ve)}
	} else if err != nil {
		return nil
	}
	return nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas are not loaded from %s", url)
}

func compile(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool-input.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("tool-input.json")
}

var printer = message.NewPrinter(language.English)

// leaves flattens a validation error tree into one line per failed keyword.
func leaves(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, fmt.Sprintf("%s: %s", loc, e.ErrorKind.LocalizedString(printer)))
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
