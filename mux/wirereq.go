package mux

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/jsonscan"
)

// BadRequestError says a request on the socket is not one the multiplexer
// takes: not a JSON object of the protocol, a field it does not know or
// its operation does not take, or larger than MaxRequest.
type BadRequestError struct {
	Reason string `json:"reason"`
}

func (e *BadRequestError) ExitCode() int { return exit.Usage }

func (e *BadRequestError) Error() string { return "the multiplexer refused the request: " + e.Reason }

// RequestTooLargeError says a request is larger than MaxRequest: the client
// does not send it.
type RequestTooLargeError struct {
	Size int `json:"size"`
}

func (e *RequestTooLargeError) ExitCode() int { return exit.Usage }

func (e *RequestTooLargeError) Error() string {
	return fmt.Sprintf("the request is %s, and the multiplexer takes at most %s: are the arguments that large?", mib(e.Size), mib(MaxRequest))
}

func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Bounds on the fields of a request, each far above what the CLI sends.
const (
	maxName       = 256 // a server id or tool name as a client typed it
	maxSearchText = 4096
	maxLimit      = 10000
	maxPairs      = 10000 // key=value arguments of an invoke
)

// fields a request may carry, beside v, env and session.
type field uint

const (
	fServer field = 1 << iota
	fTool
	fArgs
	fInput
	fListing
	fSearch
	fLogs
	fProgress
)

var fieldNames = []struct {
	f    field
	name string
}{
	{fServer, "server"}, {fTool, "tool"}, {fArgs, "args"}, {fInput, "input"},
	{fListing, "listing"}, {fSearch, "search"}, {fLogs, "logs"}, {fProgress, "progress"},
}

// opFields are the operations and what each takes; required fields must
// be set.
var opFields = map[string]struct{ allowed, required field }{
	"status":  {},
	"stop":    {},
	"catalog": {allowed: fListing},
	"tools":   {allowed: fServer, required: fServer},
	"bind":    {allowed: fServer, required: fServer},
	"tool":    {allowed: fServer | fTool, required: fServer | fTool},
	"call":    {allowed: fServer | fTool | fArgs | fLogs | fProgress, required: fServer | fTool},
	"invoke":  {allowed: fServer | fTool | fInput | fLogs | fProgress, required: fServer | fTool},
	"search":  {allowed: fSearch, required: fSearch},
}

// readRequest reads one request from r: at most MaxRequest bytes of one
// JSON object, decoded strictly and checked against its operation. size
// is how many bytes were read for it.
func readRequest(r io.Reader) (req *request, size int, err error) {
	lr := &io.LimitedReader{R: r, N: MaxRequest + 1}
	var raw json.RawMessage
	if err := json.NewDecoder(lr).Decode(&raw); err != nil {
		if lr.N <= 0 {
			return nil, 0, &BadRequestError{Reason: fmt.Sprintf("it is larger than %s", mib(MaxRequest))}
		}
		return nil, 0, &BadRequestError{Reason: describeJSONError(err)}
	}
	// encoding/json matches names without regard to case and keeps the
	// last of two alike: the protocol's names are exact, and once each.
	if err := exactNames(raw, requestNames, map[string][]string{"input": inputNames, "search": searchNames}); err != nil {
		return nil, 0, err
	}
	if n := pairsIn(raw); n > maxPairs {
		return nil, 0, &BadRequestError{Reason: fmt.Sprintf("its input has %d pairs, and the multiplexer takes at most %d", n, maxPairs)}
	}
	// Every name is known (exactNames): the fields decode as they are.
	req = &request{}
	if err := json.Unmarshal(raw, req); err != nil {
		return nil, 0, &BadRequestError{Reason: describeJSONError(err)}
	}
	if err := req.check(); err != nil {
		return nil, 0, err
	}
	return req, int(MaxRequest + 1 - lr.N), nil
}

// The names of a request's fields, and of its input's and search's.
var (
	requestNames = []string{"v", "env", "session", "op", "server", "tool", "args", "input", "listing", "search", "logs", "progress"}
	inputNames   = []string{"base", "pairs", "allowUnknown"}
	searchNames  = []string{"text", "limit", "server"}
)

// exactNames checks that raw, when an object, has each of its names once
// and only names of names, and so the objects under the names of nested.
// What is not an object is left for the decoder to say. It reads raw in
// place (jsonscan) and skips the values it does not check, so that it
// costs nothing for a request's size or shape.
func exactNames(raw json.RawMessage, names []string, nested map[string][]string) error {
	seen := map[string]bool{}
	for lit, value := range jsonscan.Members(raw) {
		name, ok := jsonscan.Unquote(lit)
		if !ok {
			return nil
		}
		switch {
		case seen[name]:
			return &BadRequestError{Reason: fmt.Sprintf("it has the field %s twice", quoted(name))}
		case !slices.Contains(names, name):
			return &BadRequestError{Reason: "it has a field the protocol does not know: " + quoted(name)}
		}
		seen[name] = true
		if sub, ok := nested[name]; ok {
			if err := exactNames(value, sub, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// pairsIn is how many pairs the input of raw, a request, holds, counted
// in place: a slice of strings costs more than the bytes of its JSON.
func pairsIn(raw json.RawMessage) int {
	n := 0
	for input := range member(raw, "input") {
		for pairs := range member(input, "pairs") {
			for range jsonscan.Elements(pairs) {
				n++
			}
		}
	}
	return n
}

// member yields the value of each member of the object obj named name
// (its name decoded: "\u0069nput" is "input").
func member(obj []byte, name string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for lit, value := range jsonscan.Members(obj) {
			if s, _ := jsonscan.Unquote(lit); s == name && !yield(value) {
				return
			}
		}
	}
}

// has says which fields req carries.
func (req *request) has() field {
	var f field
	set := func(b bool, bit field) {
		if b {
			f |= bit
		}
	}
	set(req.Server != "", fServer)
	set(req.Tool != "", fTool)
	set(req.Args != nil, fArgs)
	set(req.Input != nil, fInput)
	set(req.Listing != Listed, fListing)
	set(req.Search != nil, fSearch)
	set(req.Logs, fLogs)
	set(req.Progress, fProgress)
	return f
}

// check says what is wrong with a decoded request, in the protocol's
// words, or nil.
func (req *request) check() error {
	bad := func(format string, args ...any) error {
		return &BadRequestError{Reason: fmt.Sprintf(format, args...)}
	}
	spec, ok := opFields[req.Op]
	if !ok {
		return bad("%s is not an operation", quoted(req.Op))
	}
	has := req.has()
	for _, n := range fieldNames {
		switch {
		case has&n.f != 0 && spec.allowed&n.f == 0:
			return bad("%s takes no %q", req.Op, n.name)
		case has&n.f == 0 && spec.required&n.f != 0:
			return bad("%s needs %q", req.Op, n.name)
		}
	}
	for _, n := range []struct{ name, v string }{{"env", req.Env}, {"session", req.Session}, {"server", req.Server}, {"tool", req.Tool}} {
		if !validName(n.v) {
			return bad("%q is not a name (at most %d bytes of UTF-8)", n.name, maxName)
		}
	}
	if req.Listing < Listed || req.Listing > Seen {
		return bad("listing %d is not a way of listing", req.Listing)
	}
	if req.Args != nil && !isObject(req.Args) {
		return bad("the arguments of a call must be a JSON object")
	}
	if in := req.Input; in != nil && in.Base != nil && !isObject(in.Base) {
		return bad("the base arguments of an invoke must be a JSON object")
	}
	if s := req.Search; s != nil {
		switch {
		case len(s.Text) > maxSearchText || !utf8.ValidString(s.Text):
			return bad("the search text must be at most %d bytes of UTF-8", maxSearchText)
		case s.Limit < 0 || s.Limit > maxLimit:
			return bad("the search limit must be 0 to %d", maxLimit)
		case !validName(s.Server):
			return bad("%q is not a name (at most %d bytes of UTF-8)", "search.server", maxName)
		}
	}
	return nil
}

func validName(v string) bool {
	return len(v) <= maxName && utf8.ValidString(v) && !strings.ContainsRune(v, 0)
}

// isObject says whether raw is a JSON object (json.RawMessage holds valid
// JSON once decoded; null and the other kinds are not objects).
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// describeJSONError says in words what is wrong with a request that is
// not the protocol's JSON, without naming this program's types.
func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "it ended before a whole JSON object"
	case errors.As(err, &ne) && ne.Timeout():
		return "it did not come whole in time"
	case errors.As(err, &syn):
		return fmt.Sprintf("it is not JSON (at byte %d)", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return "it must be a JSON object"
		}
		return fmt.Sprintf("%q must be %s, not a JSON %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "it has a field the protocol does not know: " + name
	}
	return "it is not a request of the protocol"
}

// jsonKind names a Go kind as the JSON value that decodes into it.
func jsonKind(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"), strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "true or false"
	case kind == "slice":
		return "an array"
	}
	return "an object"
}

// quoted is s as the multiplexer names what a client sent: quoted, cut
// short.
func quoted(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:40], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}
