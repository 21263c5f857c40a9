//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv"
)

// goWords are what a message shows when a Go decoding error reached it
// unexplained.
var goWords = []string{"Go value", "Go struct", "struct {", "json.RawMessage", "mcp.", "transport.", "JSONRPC", "of type "}

// malformedTimeout is the --timeout of every run: a reply of the wrong
// shape must end the command long before it.
const malformedTimeout = 30 * time.Second

// newMalformedEnv is a muxEnv whose one server, b (required), is
// malformed-server answering as shape says, and whose agent tooler serves
// b's tools in tools mode.
func newMalformedEnv(t *testing.T, shape string) *muxEnv {
	m := newMuxEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(filepath.Dir(m.root), "bin", "malformed-server")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(m.root, "package.json"), `{"name": "malformed", "pi": {"mcp": {"manifests": ["mcp.json"],
  "servers": [{"id": "b", "required": true, "tools": {"include": ["*"]}}]}}}`)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {"b": {"command": "malformed-server",
  "env": {"MALFORMED": "`+shape+`", "GORACE": "atexit_sleep_ms=0"}}}}`)
	writeFile(t, filepath.Join(m.root, "agents", "tooler.yaml"), "mcp:\n  mode: tools\n  servers:\n    b:\n      include: [\"*\"]\n")
	m.trust()
	return m
}

// TestMalformedReplies runs every reply of the wrong shape a server can
// send against every way a tool is reached: each ends at once, with exit 4
// (the server is at fault), in words that name the server and no Go type.
func TestMalformedReplies(t *testing.T) {
	t.Parallel()
	timeout := "--timeout=" + malformedTimeout.String()
	for _, shape := range testenv.MalformedShapes {
		t.Run(shape.Name, func(t *testing.T) {
			m := newMalformedEnv(t, shape.Name)
			direct := []string{"MCP_NO_MUX=1"}
			type path struct {
				name string
				env  []string
				args []string
			}
			paths := []path{
				{"direct call", direct, []string{"call", "b.t", timeout}},
				{"multiplexer call", nil, []string{"call", "b.t", timeout}},
				{"direct run", direct, []string{"run", "-e", "await b.t({})", timeout}},
				{"multiplexer run", nil, []string{"run", "-e", "await b.t({})", timeout}},
				{"run through mcp.call", nil, []string{"run", "-e", `await mcp.call("b.t", {})`, timeout}},
			}
			if shape.Method != "tools/call" {
				paths = append(paths,
					path{"direct list", direct, []string{"list", "b", timeout}},
					path{"multiplexer list", nil, []string{"list", "b", timeout}},
					path{"serve", nil, []string{"serve", "--agent", "tooler", timeout}})
			}
			for _, p := range paths {
				start := time.Now()
				r := m.run(p.env, p.args...)
				took := time.Since(start)
				out := r.stdout + r.stderr
				if r.code != exit.Upstream {
					t.Errorf("%s: exit %d, want %d\n%s", p.name, r.code, exit.Upstream, out)
				}
				if took > malformedTimeout/2 {
					t.Errorf("%s: took %s against a --timeout of %s", p.name, took, malformedTimeout)
				}
				if !strings.Contains(r.stderr, "server b") {
					t.Errorf("%s: stderr does not name server b:\n%s", p.name, r.stderr)
				}
				noGoWords(t, p.name, out)
			}
			if shape.Method == "tools/call" {
				serveCallFails(t, m)
			}
		})
	}
}

// noGoWords fails the test when out shows a Go type.
func noGoWords(t *testing.T, what, out string) {
	t.Helper()
	for _, w := range goWords {
		if strings.Contains(out, w) {
			t.Errorf("%s: output shows %q:\n%s", what, w, out)
		}
	}
}

// serveCallFails calls b's tool through mcp serve with a real MCP client:
// the call fails at once with a tool error in words, and serve goes on.
func serveCallFails(t *testing.T, m *muxEnv) {
	t.Helper()
	var stderr testenv.SyncBuffer
	exe, _ := os.Executable()
	tr := transport.NewStdioWithOptions(exe, nil, []string{"serve", "--agent", "tooler", "--timeout=" + malformedTimeout.String()},
		transport.WithCommandStderrWriter(&stderr), transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := m.command(nil, args...)
			return cmd, nil
		}))
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*malformedTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "malformed-test", Version: "1"}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("serve: initialize: %v\n%s", err, stderr.String())
	}
	for range 2 {
		start := time.Now()
		res, err := c.CallTool(ctx, callRequest("b__t", nil))
		took := time.Since(start)
		if took > malformedTimeout/2 {
			t.Errorf("serve: the call took %s against a --timeout of %s", took, malformedTimeout)
		}
		var text string
		switch {
		case err != nil:
			text = err.Error()
		case !res.IsError:
			t.Errorf("serve: the call succeeded: %+v", res)
		default:
			text = fmt.Sprint(res.Content)
		}
		if !strings.Contains(text, "server b") {
			t.Errorf("serve: the call's error does not name server b: %s", text)
		}
		noGoWords(t, "serve", text+stderr.String())
	}
}

// A list whose entries include some that cannot be tools offers the
// others, and names each of those in a warning, directly and through the
// multiplexer: by its place in the list, with its title printable. (Each
// path in a recipe of its own: a list answered from the catalog cache is
// not the server's, and warns of nothing.)
func TestInvalidToolsInAList(t *testing.T) {
	want := []string{
		`mcp: warning: b: the tool at tools[1] of its tools/list is not offered: its "name" is a number (42), not a string`,
		`mcp: warning: b: the tool at tools[2] (titled "Nameless ]0;owned [2J") of its tools/list is not offered: it has no "name"`,
		`mcp: warning: b: the tool at tools[5] of its tools/list is not offered: it is a string, not an object`,
	}
	for name, env := range map[string][]string{"direct": {"MCP_NO_MUX=1"}, "multiplexer": nil} {
		t.Run(name, func(t *testing.T) {
			m := newMalformedEnv(t, testenv.InvalidTools.Name)
			r := m.run(env, "list", "b")
			if r.code != 0 || !strings.Contains(r.stdout, "b.t(") || !strings.Contains(r.stdout, "b.u(") {
				t.Errorf("list b: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			for _, w := range want {
				if !strings.Contains(r.stderr, w+"\n") {
					t.Errorf("stderr does not hold %q:\n%s", w, r.stderr)
				}
			}
			if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
				t.Errorf("a server's escape sequence reached the terminal: %q", r.stderr)
			}
		})
	}
}
