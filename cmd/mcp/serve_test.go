package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/internal/toolsmode"
)

// The tests of `mcp serve` run the mcp command (this test binary, which
// TestMain puts on PATH as mcp) on the recipe in testdata/serve-recipe,
// whose servers are server-everything and server-memory.

// serveEnv is the environment of an mcp process: a home of its own (so the
// catalog cache starts empty), the npm servers, and no session.
func serveEnv(t *testing.T) []string {
	t.Helper()
	dir, node, home := testenv.Dir(t), testenv.Node(t), t.TempDir()
	modules := filepath.Join(dir, "node_modules", "@modelcontextprotocol")
	env := []string{
		session.EnvVar + "=" + unsetSession,
		"HOME=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"NODE=" + node,
		"EVERYTHING_JS=" + filepath.Join(modules, "server-everything", "dist", "index.js"),
		"MEMORY_JS=" + filepath.Join(modules, "server-memory", "dist", "index.js"),
		"MEMORY_FILE=" + filepath.Join(home, "memory.jsonl"),
		"GORACE=atexit_sleep_ms=0",
	}
	// Whoever sets up a host trusts the recipe once, as a person would.
	if code, _, stderr := runMCP(t, env, "trust", serveRecipe(t)); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}
	return env
}

func mcpBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("mcp")
	if err != nil {
		t.Fatalf("the test binary is not on PATH as mcp: %v", err)
	}
	return p
}

func serveRecipe(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "serve-recipe"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runMCP runs mcp to its end and returns its exit code and output.
func runMCP(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpBinary(t), args...)
	cmd.Env = append(cmd.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("mcp %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

func TestServe_Usage(t *testing.T) {
	t.Parallel()
	recipe := serveRecipe(t)
	env := serveEnv(t)
	tests := []struct {
		name   string
		env    []string
		args   []string
		code   int
		stderr []string // lines, in order; a line ending in "…" is a prefix
	}{
		{"no agent", env, []string{"--recipe", recipe, "serve"}, exit.Usage, []string{
			"mcp: error: mcp serve needs --agent NAME: it serves one agent's tools",
			"mcp: hint: `mcp check` prints each agent's surface and mode",
		}},
		{"cli agent", env, []string{"--recipe", recipe, "--agent", "shell", "serve"}, exit.Usage, []string{
			"mcp: error: agent shell is in cli mode; mcp serve is for tools mode",
			"mcp: hint: give the agent `mode: tools` in its mcp block, or run it in cli mode with `mcp session start --agent shell`",
		}},
		{"in a session", append(slices.Clip(env), session.EnvVar+"=0123456789abcdef0123"), []string{"serve", "--agent", "tooler"}, exit.Usage, []string{
			"mcp: error: mcp serve: administrative commands (a session has search, list, call and run) are not available in a session: the session's surface is fixed when it starts",
			"mcp: hint: ask whoever started the session for a session with the capability you need",
		}},
		// A host starts mcp serve in a directory of its own: the error
		// says how to name the recipe.
		{"outside the recipe", env, []string{"serve", "--agent", "tooler"}, exit.Config, []string{
			`mcp: error: --agent: "tooler" agents belong to a recipe, and there is no package.json with pi.mcp here or above; give --recipe DIR, or run inside a recipe, or drop --agent to use your own MCP configuration`,
		}},
		// A required server that cannot be bound fails the launch.
		{"required server down", append(slices.Clip(env), "NODE=/nonexistent/node"), []string{"--recipe", recipe, "--agent", "tooler", "serve"}, exit.Upstream, []string{
			"mcp: error: session not started: required server everything: server everything is unavailable: …",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMCP(t, tt.env, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			got := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			ok := len(got) == len(tt.stderr)
			for i := 0; ok && i < len(got); i++ {
				if prefix, cut := strings.CutSuffix(tt.stderr[i], "…"); cut {
					ok = strings.HasPrefix(got[i], prefix)
				} else {
					ok = got[i] == tt.stderr[i]
				}
			}
			if !ok {
				t.Errorf("stderr =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.stderr, "\n"))
			}
		})
	}
}

// TestServe_EndToEnd drives `mcp serve --agent tooler` with mcp-go's stdio
// client (the server is the official Go SDK's: two implementations), over
// the modern protocol and over the legacy handshake.
func TestServe_EndToEnd(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"modern", "legacy"} {
		t.Run(proto, func(t *testing.T) {
			var stderr testenv.SyncBuffer
			args := []string{"--recipe", serveRecipe(t), "serve", "--agent", "tooler"}
			tr := transport.NewStdioWithOptions(mcpBinary(t), serveEnv(t), args, transport.WithCommandStderrWriter(&stderr))
			// A slow start (the race detector, a busy machine) must not pass
			// for a server without server/discover.
			c := client.NewClient(tr, client.WithDiscoverTimeout(60*time.Second))
			closed := false
			defer func() {
				if !closed {
					_ = c.Close()
				}
				if t.Failed() {
					t.Logf("mcp serve stderr:\n%s", stderr.String())
				}
			}()
			changed := make(chan string, 8)
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				// This runs on the client's read goroutine: hand it over.
				select {
				case changed <- n.Method:
				default:
				}
			})
			// The context of Start bounds the process's life.
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init := mcp.InitializeRequest{}
			init.Params.ClientInfo = mcp.Implementation{Name: "serve-test", Version: "1"}
			if proto == "legacy" {
				init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			}
			res, err := c.Initialize(ctx, init)
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if res.ServerInfo.Name != "mcp" || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
				t.Errorf("initialize = %+v", res)
			}
			wantProto := mcp.LATEST_PROTOCOL_VERSION
			if proto == "legacy" {
				wantProto = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			}
			if got := c.ProtocolVersion(); got != wantProto {
				t.Errorf("protocol version %s, want %s", got, wantProto)
			}
			stopListen := func() {}
			if proto == "modern" {
				// From 2026-07-28 on, a client opts in to list changes on a
				// subscriptions/listen stream; the server acknowledges it.
				stop, err := c.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) {
					t.Errorf("subscriptions/listen: %v", err)
				})
				if err != nil {
					t.Fatalf("subscriptions/listen: %v", err)
				}
				stopListen = stop
				select {
				case m := <-changed:
					if m != mcp.MethodNotificationSubscriptionsAcknowledged {
						t.Fatalf("notification %s, want %s", m, mcp.MethodNotificationSubscriptionsAcknowledged)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("subscriptions/listen was not acknowledged within 10s")
				}
			}

			// At the start: the eager tools and mcp_search.
			start := []string{"everything__echo", "mcp_search", "memory__create_entities", "memory__read_graph"}
			if got := listNames(ctx, t, c); !slices.Equal(got, start) {
				t.Fatalf("tools/list = %v, want %v", got, start)
			}
			if text, isErr := callText(ctx, t, c, "everything__echo", map[string]any{"message": "hello"}); isErr || text != "Echo: hello" {
				t.Errorf("echo = %q (error %v)", text, isErr)
			}

			// Not loaded yet, excluded, not authorized, unknown: one answer.
			for _, name := range []string{"everything__get_sum", "everything__get_env", "everything__get_resource_links", "memory__delete_entities", "nothing__at_all"} {
				text, isErr := callText(ctx, t, c, name, map[string]any{"a": 1, "b": 2})
				if !isErr || text != name+" is not one of the tools this server lists; mcp_search finds more tools" {
					t.Errorf("%s = %q (error %v), want the not-available tool error", name, text, isErr)
				}
			}

			// mcp_search loads a deferred tool and notifies.
			sr, err := c.CallTool(ctx, callRequest(toolsmode.SearchTool, map[string]any{"query": "add two numbers", "limit": 1}))
			if err != nil {
				t.Fatalf("mcp_search: %v", err)
			}
			structured, _ := json.Marshal(sr.StructuredContent)
			if sr.IsError || !strings.Contains(string(structured), `"name":"everything__get_sum"`) || strings.Contains(string(structured), "tiny") {
				t.Fatalf("mcp_search = %s", structured)
			}
			select {
			case m := <-changed:
				if m != mcp.MethodNotificationToolsListChanged {
					t.Errorf("notification %s, want %s", m, mcp.MethodNotificationToolsListChanged)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed after mcp_search loaded a tool")
			}
			want := append(slices.Clone(start), "everything__get_sum")
			slices.Sort(want)
			if got := listNames(ctx, t, c); !slices.Equal(got, want) {
				t.Fatalf("tools/list after mcp_search = %v, want %v", got, want)
			}
			if text, isErr := callText(ctx, t, c, "everything__get_sum", map[string]any{"a": 2, "b": 40}); isErr || !strings.Contains(text, "42") {
				t.Errorf("get_sum = %q (error %v)", text, isErr)
			}
			// Loading one tool does not load the others.
			if text, isErr := callText(ctx, t, c, "everything__get_tiny_image", nil); !isErr || text != "everything__get_tiny_image is not one of the tools this server lists; mcp_search finds more tools" {
				t.Errorf("get_tiny_image = %q (error %v)", text, isErr)
			}

			// The second server, connected at start (nothing is cached yet).
			if _, isErr := callText(ctx, t, c, "memory__create_entities", map[string]any{
				"entities": []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []string{"wrote a program"}}},
			}); isErr {
				t.Error("create_entities failed")
			}
			if text, isErr := callText(ctx, t, c, "memory__read_graph", nil); isErr || !strings.Contains(text, "Ada") {
				t.Errorf("read_graph = %q (error %v)", text, isErr)
			}

			// Closing stdin ends the server cleanly.
			stopListen()
			closed = true
			if err := c.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if log := stderr.String(); !strings.Contains(log, "mcp: serving agent tooler in tools mode: 4 tools at start, 3 deferred\n") {
				t.Errorf("stderr = %q", log)
			}
		})
	}
}

func callRequest(name string, args map[string]any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = name
	if args == nil {
		args = map[string]any{}
	}
	req.Params.Arguments = args
	return req
}

func listNames(ctx context.Context, t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// callText calls a tool and returns its text content and isError.
func callText(ctx context.Context, t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := c.CallTool(ctx, callRequest(name, args))
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	var parts []string
	for _, item := range res.Content {
		if tc, ok := item.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

// startServe runs mcp serve with args as a child of an MCP client and
// initializes it as client name, and returns the client, the context
// that bounds the process and the server's stderr; the client closes, and
// the stderr is shown when the test failed, when the test ends.
func startServe(t *testing.T, env, args []string, name string, opts ...client.ClientOption) (*client.Client, context.Context, *testenv.SyncBuffer) {
	t.Helper()
	stderr := new(testenv.SyncBuffer)
	tr := transport.NewStdioWithOptions(mcpBinary(t), env, args, transport.WithCommandStderrWriter(stderr))
	c := client.NewClient(tr, opts...)
	// The context of Start bounds the process's life.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(func() {
		_ = c.Close()
		cancel()
		if t.Failed() {
			t.Logf("mcp serve stderr:\n%s", stderr.String())
		}
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c, ctx, stderr
}
