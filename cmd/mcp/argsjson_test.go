//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// --args is one JSON object and nothing after it but whitespace, checked
// before anything starts, the same through the multiplexer and without it;
// a message about a file says where it goes wrong, never what it holds.
func TestCallArgsMustBeOneObject(t *testing.T) {
	m := newMuxEnv(t)
	dir := t.TempDir()
	two := filepath.Join(dir, "two.json")
	writeFile(t, two, "{\"message\":\"a\"}\n{\"message\":\"b\"}\n")
	secret := filepath.Join(dir, "secret")
	writeFile(t, secret, "Zroot:$6$hash:19000:0:99999:7:::\n")
	list := filepath.Join(dir, "list.json")
	writeFile(t, list, `["message"]`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--args", `{"message":"a"}x`}, "mcp: error: --args: not one JSON object: something follows the object at line 1, column 16"},
		{[]string{"--args", `{"message":"a"} {}`}, "something follows the object at line 1, column 17"},
		{[]string{"--args", `{"message":`}, "--args: not one JSON object: the JSON ends too soon"},
		{[]string{"--args", `[1]`}, "--args: not one JSON object: an array"},
		{[]string{"--args", "@" + two}, "--args: " + two + " is not one JSON object: something follows the object at line 2, column 1"},
		{[]string{"--args", "@" + secret}, "--args: " + secret + " is not one JSON object: invalid JSON at line 1, column 1"},
		{[]string{"--args", "@" + list}, "--args: " + list + " is not one JSON object: an array"},
	}
	for _, c := range cases {
		for _, env := range [][]string{nil, {"MCP_NO_MUX=1"}} {
			r := m.run(env, append([]string{"call", "fake.echo"}, c.args...)...)
			if r.code != exit.Usage || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("%v %v: exit %d, want %d; stderr should be one line holding %q\nstderr: %s", env, c.args, r.code, exit.Usage, c.want, r.stderr)
			}
			if strings.Contains(r.stderr, "Zroot") || strings.Contains(r.stderr, "'Z'") || strings.Contains(r.stderr, "RawMessage") {
				t.Errorf("%v %v: the message quotes the file or names a type: %s", env, c.args, r.stderr)
			}
		}
	}
	// Nothing was started for any of them.
	if b, err := os.ReadFile(m.events); err == nil && len(b) > 0 {
		t.Errorf("a server was started for arguments that were refused: %s", b)
	}
}
