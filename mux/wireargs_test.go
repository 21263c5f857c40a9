package mux

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

// A refused argument crosses the multiplexer's socket with the form that
// works, which the hint names.
func TestWire_argError(t *testing.T) {
	in := &catalog.ArgError{Arg: "maxCount", Msg: `expected an integer, got "abc"`, Want: "integer", Try: "maxCount=10"}
	var out *catalog.ArgError
	if err := decodeError(encodeError(in)); !errors.As(err, &out) || !reflect.DeepEqual(out, in) {
		t.Errorf("decoded %#v, want %#v", err, in)
	}
}
