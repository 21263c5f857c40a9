package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
)

// InvalidReplyError says a server answered a request with something that
// is not what the method returns, or not a JSON-RPC 2.0 reply at all. The
// server is at fault, as when it is unavailable; the connection stays up.
type InvalidReplyError struct {
	Server string
	Method string
	// What is "result" for a result of the wrong shape, "reply" for a
	// message that is not a JSON-RPC 2.0 response.
	What string
	// Problem says what is wrong, in words.
	Problem string
}

func (e *InvalidReplyError) ExitCode() int { return exit.Upstream }

func (e *InvalidReplyError) Error() string {
	return fmt.Sprintf("server %s sent an invalid %s %s: %s", e.Server, e.Method, e.What, e.Problem)
}

// Summary is the error on one line.
func (e *InvalidReplyError) Summary() string {
	return fmt.Sprintf("sent an invalid %s %s", e.Method, e.What)
}

// decodeResult decodes a result of method from server into v. It is the
// one place the results a connection reads are decoded, so that what is
// wrong with one is said in words, never in Go's.
func decodeResult(server, method string, raw json.RawMessage, v any) error {
	if err := nullResult(server, method, raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidResult(server, method, err)
	}
	return nil
}

// nullResult is the error of a result of method that is null, or nil:
// every method's result is an object, and encoding/json would take null
// for an empty one (no tools, no content).
func nullResult(server, method string, raw json.RawMessage) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return &InvalidReplyError{Server: server, Method: method, What: "result", Problem: "it must be an object, not null"}
	}
	return nil
}

// invalidResult is the error of a result of method that err could not
// decode.
func invalidResult(server, method string, err error) *InvalidReplyError {
	return &InvalidReplyError{Server: server, Method: method, What: "result", Problem: decodeProblem(err)}
}

// decodeProblem says in words what a JSON decoding error found wrong.
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		want, got := jsonKind(te.Type), valueKind(te.Value)
		if te.Field == "" {
			return fmt.Sprintf("it must be %s, not %s", want, got)
		}
		return fmt.Sprintf("%s must be %s, not %s", fieldPath(te.Field), want, got)
	case errors.As(err, &se):
		return "it is not valid JSON"
	}
	return "it cannot be read"
}

// fieldPath is a dotted path of JSON names as the server wrote it,
// "tools" or "content", quoted.
func fieldPath(field string) string {
	return `"` + strings.ReplaceAll(field, `"`, "") + `"`
}

// jsonKind is the kind of JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value of another kind"
}

// valueKind names the JSON value encoding/json says it found ("string",
// "number 1e400", "array", ...).
func valueKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "string", "number":
		return "a " + kind
	case "object", "array":
		return "an " + kind
	case "bool":
		return "true or false"
	case "null":
		return "null"
	}
	return "something else"
}
