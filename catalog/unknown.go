package catalog

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/words"
)

// Keys a tool's input schema does not declare. A misspelled key is the
// easiest mistake to make on a command line, and most servers ignore what
// they do not know, so it would be lost without a word. A schema is
// closed, and an undeclared key is an error before anything is sent, when
// its root declares properties and:
//
//   - says "additionalProperties": false, as JSON Schema itself would; or
//   - says nothing about other keys (no additionalProperties,
//     patternProperties, unevaluatedProperties, and no allOf, anyOf, oneOf,
//     $ref, if, dependentSchemas or dependencies that could declare more).
//     This is how most servers write their schemas (zod, pydantic and
//     mcp-go leave additionalProperties out), although JSON Schema would
//     allow other keys here.
//
// Any other schema is open: what it allows is sent as given.

// UnknownArgsError says the arguments hold keys a closed input schema does
// not declare. The CLI reports it with exit 2 and a way to send them
// anyway.
type UnknownArgsError struct {
	Tool    string            `json:",omitempty"` // SERVER.TOOL, when the caller knows it
	Keys    []string          // in the order given
	Suggest map[string]string `json:",omitempty"` // a key -> the declared one it is likely a typo of
	// Signature is the tool's, as SERVER.TOOL(...), when the caller knows
	// the tool.
	Signature string `json:",omitempty"`
}

func (e *UnknownArgsError) Error() string {
	parts := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		parts[i] = clip.Runes(k, 41)
		if s, ok := e.Suggest[k]; ok {
			parts[i] += " (did you mean " + s + "?)"
		}
	}
	what := "unknown argument "
	if len(e.Keys) > 1 {
		what = "unknown arguments "
	}
	msg := what + strings.Join(parts, ", ")
	if e.Tool != "" {
		msg = e.Tool + ": " + msg
	}
	return msg
}

func (e *UnknownArgsError) ExitCode() int { return exit.Usage }

// CheckKnown returns an *UnknownArgsError when args (a JSON object) hold
// keys that a closed schema does not declare, and nil otherwise.
func CheckKnown(schema, args json.RawMessage) error {
	declared, closed := declaredKeys(schema)
	if !closed {
		return nil
	}
	obj := map[string]json.RawMessage{}
	var order []string
	if decodeObject(args, &obj, &order) != nil {
		return nil // ValidateArgs says what is wrong with it
	}
	var unknown []string
	suggest := map[string]string{}
	for _, k := range order {
		if contains(declared, k) {
			continue
		}
		unknown = append(unknown, k)
		if s := nearest(k, declared); s != "" {
			suggest[k] = s
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	if len(suggest) == 0 {
		suggest = nil
	}
	return &UnknownArgsError{Keys: unknown, Suggest: suggest}
}

// WithoutUnknown is args less the keys a closed schema does not declare:
// what the schema is checked against when such keys are sent anyway.
func WithoutUnknown(schema, args json.RawMessage) json.RawMessage {
	declared, closed := declaredKeys(schema)
	if !closed {
		return args
	}
	obj := map[string]json.RawMessage{}
	var order []string
	if decodeObject(args, &obj, &order) != nil {
		return args
	}
	kept := order[:0:0]
	for _, k := range order {
		if contains(declared, k) {
			kept = append(kept, k)
		}
	}
	return encodeObject(obj, kept)
}

// openKeywords are the root keywords that can allow, or declare, keys
// beyond the root's own properties.
var openKeywords = []string{
	"patternProperties", "unevaluatedProperties", "allOf", "anyOf", "oneOf",
	"$ref", "$dynamicRef", "if", "then", "else", "dependentSchemas", "dependencies",
}

// declaredKeys returns the root properties of schema and whether the
// schema is closed (see the top of this file).
func declaredKeys(schema json.RawMessage) ([]string, bool) {
	var root map[string]json.RawMessage
	if json.Unmarshal(schema, &root) != nil {
		return nil, false
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(root["properties"], &props) != nil || len(props) == 0 {
		return nil, false
	}
	declared := make([]string, 0, len(props))
	for k := range props {
		declared = append(declared, k)
	}
	sort.Strings(declared)
	ap, said := root["additionalProperties"]
	switch {
	case said && bytes.Equal(bytes.TrimSpace(ap), []byte("false")):
		_, pattern := root["patternProperties"]
		return declared, !pattern
	case said:
		return nil, false
	}
	for _, k := range openKeywords {
		if _, ok := root[k]; ok {
			return nil, false
		}
	}
	return declared, true
}

// nearest is the declared key that key is most likely a typo of: the same
// but for case, or at most two edits away (a swap of neighbours is one)
// and fewer edits than key has characters. "" when none is.
func nearest(key string, declared []string) string {
	best, bestD := "", 3
	for _, d := range declared {
		dist := words.Distance(strings.ToLower(key), strings.ToLower(d))
		if dist < bestD { // declared is sorted: the first of equals wins
			best, bestD = d, dist
		}
	}
	if best == "" || bestD >= len([]rune(key)) {
		return ""
	}
	return best
}
