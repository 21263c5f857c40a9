package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpsh/mcp/internal/exit"
)

type propSchema struct {
	types []string
	items *propSchema
}

func (p propSchema) isArray() bool { return len(p.types) > 0 && p.types[0] == "array" }

func argProps(schema json.RawMessage) map[string]propSchema {
	out := map[string]propSchema{}
	for _, p := range Params(schema) {
		out[p.Name] = propSchema{types: p.Types, items: &propSchema{types: p.ItemTypes}}
	}
	return out
}

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

// ValidateArgs checks args against the tool's input schema, compiling it
// for this one check; Schemas compiles each schema once. A schema that
// cannot be compiled here (a remote $ref, an unknown draft) is not checked:
// the server still validates what it receives.
func ValidateArgs(schema, args json.RawMessage) error {
	return validateArgs(schema, args, compileSchema)
}

// Schemas validates arguments against input schemas, compiling each schema
// once. It is safe for concurrent use; the zero value is ready.
type Schemas struct {
	mu sync.Mutex
	m  map[string]compiledSchema
}

type compiledSchema struct {
	s   *jsonschema.Schema
	err error
}

// maxSchemas bounds how many compiled schemas Schemas keeps; past it, it
// starts over.
const maxSchemas = 4096

// ValidateArgs is ValidateArgs with the compiled schema kept for next time.
func (c *Schemas) ValidateArgs(schema, args json.RawMessage) error {
	return validateArgs(schema, args, c.compile)
}

func (c *Schemas) compile(schema json.RawMessage) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs, ok := c.m[string(schema)]; ok {
		return cs.s, cs.err
	}
	if c.m == nil || len(c.m) >= maxSchemas {
		c.m = map[string]compiledSchema{}
	}
	s, err := compileSchema(schema)
	c.m[string(schema)] = compiledSchema{s, err}
	return s, err
}

func validateArgs(schema, args json.RawMessage, compile func(json.RawMessage) (*jsonschema.Schema, error)) error {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(args, &given); err != nil {
		return &InvalidArgsError{Problems: []string{"arguments must be a JSON object"}}
	}
	var missing []string
	for _, p := range Params(schema) {
		if _, ok := given[p.Name]; p.Required && !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return &InvalidArgsError{Missing: missing}
	}
	sch, err := compile(schema)
	if err != nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &InvalidArgsError{Problems: []string{"arguments are not valid JSON"}}
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(inst); errors.As(err, &ve) {
		return &InvalidArgsError{Problems: leaves(ve)}
	} else if err != nil {
		return nil
	}
	return nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas are not loaded from %s", url)
}

func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
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
