package catalog

import (
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// --args is one JSON object and nothing after it but whitespace; the
// refusal says where the text goes wrong, never what it holds.
func TestCheckArgsObject(t *testing.T) {
	cases := []struct {
		data, from, want string
	}{
		{`{"message":"a"}x`, "", "--args: not one JSON object: something follows the object at line 1, column 16"},
		{`{"message":"a"} {}`, "", "--args: not one JSON object: something follows the object at line 1, column 17"},
		{`{"message":`, "", "--args: not one JSON object: the JSON ends too soon"},
		{`[1]`, "", "--args: not one JSON object: an array"},
		{"{\"message\":\"a\"}\n{\"message\":\"b\"}\n", "two.json", "--args: two.json is not one JSON object: something follows the object at line 2, column 1"},
		{"Zroot:$6$hash", "secret", "--args: secret is not one JSON object: invalid JSON at line 1, column 1"},
	}
	for _, c := range cases {
		err := CheckArgsObject([]byte(c.data), c.from)
		if err == nil || err.Error() != c.want || exit.Code(err) != exit.Usage {
			t.Errorf("CheckArgsObject(%q, %q) = %v (exit %d), want %q (exit %d)", c.data, c.from, err, exit.Code(err), c.want, exit.Usage)
		}
	}
	if err := CheckArgsObject([]byte(" {\"a\": 1}\n"), ""); err != nil {
		t.Errorf("one object refused: %v", err)
	}
}
