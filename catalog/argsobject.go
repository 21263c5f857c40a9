package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpsh/mcp/internal/exit"
)

// ArgsObjectError refuses --args that is not one JSON object: exit 2.
// It says where the text goes wrong, never what it holds: a file named by
// mistake may be anyone's secret.
type ArgsObjectError struct {
	From string // where the text came from: "" for the command line, "stdin" or a path
	Why  string // what is wrong, in words
}

// Error is the one line of the refusal.
func (e *ArgsObjectError) Error() string {
	if e.From == "" {
		return "--args: not one JSON object: " + e.Why
	}
	return "--args: " + e.From + " is not one JSON object: " + e.Why
}

// ExitCode is exit.Usage: the command line is wrong.
func (e *ArgsObjectError) ExitCode() int { return exit.Usage }

// CheckArgsObject refuses --args unless data is one JSON object with
// nothing after it but whitespace, with an *ArgsObjectError. from names
// where data came from ("" for the command line).
func CheckArgsObject(data []byte, from string) error {
	refuse := func(why string) error { return &ArgsObjectError{From: from, Why: why} }
	if len(data) > MaxArgsSize {
		return refuse(fmt.Sprintf("it is larger than %d MiB", MaxArgsSize>>20))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &syn):
			return refuse("invalid JSON at " + position(data, syn.Offset-1))
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return refuse("the JSON ends too soon")
		default:
			return refuse("invalid JSON")
		}
	}
	if kind := jsonKind(v); kind != "an object" {
		return refuse(kind)
	}
	end := int(dec.InputOffset())
	rest := bytes.TrimLeft(data[end:], " \t\r\n")
	if len(rest) > 0 {
		return refuse("something follows the object at " + position(data, int64(len(data)-len(rest))))
	}
	return nil
}

// jsonKind names the kind of the JSON value v in words.
func jsonKind(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// position is the line and column (both from 1, the column in bytes) of
// the byte at off in data.
func position(data []byte, off int64) string {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}
