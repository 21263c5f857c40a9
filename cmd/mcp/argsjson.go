package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpsh/mcp/catalog"
)

// checkArgsObject refuses --args unless data is one JSON object with
// nothing after it but whitespace. from names where data came from ("" for
// the command line). The message says where the text goes wrong, never
// what it holds: a file named by mistake may be anyone's secret.
func checkArgsObject(data []byte, from string) error {
	refuse := func(why string) error {
		if from == "" {
			return &usageError{msg: "--args: not one JSON object: " + why}
		}
		return &usageError{msg: "--args: " + from + " is not one JSON object: " + why}
	}
	if len(data) > catalog.MaxArgsSize {
		return refuse(fmt.Sprintf("it is larger than %d MiB", catalog.MaxArgsSize>>20))
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
