package explain

import (
	"fmt"
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

// An argument refused for its form is followed by the form that works.
func TestHint_argError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&catalog.ArgError{Arg: "/etc/hosts", Msg: "expected key=value or key:=JSON", Try: "path=/etc/hosts"},
			"arguments are named: write path=/etc/hosts"},
		{fmt.Errorf("fs.search: %w", &catalog.ArgError{Arg: "maxCount", Msg: `expected an integer, got "abc"`, Want: "integer", Try: "maxCount=10"}),
			"maxCount takes an integer, such as maxCount=10"},
		{&catalog.ArgError{Arg: "head", Msg: `expected a number, got "x"`, Want: "number", Try: "head=10"},
			"head takes a number, such as head=10"},
		{&catalog.ArgError{Arg: "exact", Msg: `expected true or false, got "yes"`, Want: "boolean", Try: "exact=true"},
			"exact takes true or false, such as exact=true"},
		{&catalog.ArgError{Arg: "x", Msg: "expected key=value or key:=JSON"}, ""},
	}
	for _, tt := range tests {
		if got := Hint(tt.err); got != tt.want {
			t.Errorf("Hint(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
