package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
)

// The tests of this file drive `mcp serve` with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in the test npm package) as its
// client: a Node script of testdata/tsclient starts mcp through the SDK's
// stdio transport, does what a client would, and prints one JSON object of
// what it found. The Go test asserts on it; the script only fails on
// errors it did not expect.

// tsFindings is the JSON object a tsclient script printed, by key.
type tsFindings map[string]json.RawMessage

// get decodes the finding key into v; a missing key fails the test.
func (f tsFindings) get(t *testing.T, key string, v any) {
	t.Helper()
	raw, ok := f[key]
	if !ok {
		t.Fatalf("tsclient: no finding %q in %v", key, f)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("tsclient: finding %q = %s: %v", key, raw, err)
	}
}

// runTSClient runs testdata/tsclient/SCRIPT.cjs with node and the test npm
// package's modules on NODE_PATH, in env (serveEnv's, with MCP_BIN naming
// the mcp binary), and returns its findings. args go to the script, which
// passes them to mcp. A script that fails or prints no JSON object fails
// the test with its stderr (mcp's stderr is in it too).
func runTSClient(t *testing.T, env []string, script string, args ...string) tsFindings {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "tsclient", script+".cjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Node(t), append([]string{path}, args...)...)
	cmd.Env = append(cmd.Environ(), env...)
	cmd.Env = append(cmd.Env,
		"NODE_PATH="+filepath.Join(testenv.Dir(t), "node_modules"),
		"MCP_BIN="+mcpBinary(t),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tsclient %s: %v\nstderr:\n%s", script, err, stderr.String())
	}
	var f tsFindings
	if err := json.Unmarshal(stdout.Bytes(), &f); err != nil {
		t.Fatalf("tsclient %s: stdout is not one JSON object: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("tsclient %s stderr:\n%s", script, stderr.String())
	}
	return f
}

type tsCall struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// TestTSClient_Basics: the handshake, the tool list at the start, a call
// and the refusal of an excluded tool, as the TypeScript SDK sees them.
func TestTSClient_Basics(t *testing.T) {
	t.Parallel()
	f := runTSClient(t, serveEnv(t), "basics", "--recipe", serveRecipe(t), "serve", "--agent", "tooler")
	var name string
	var listChanged bool
	var tools []string
	var echo, refused tsCall
	f.get(t, "serverName", &name)
	f.get(t, "toolsListChanged", &listChanged)
	f.get(t, "tools", &tools)
	f.get(t, "echo", &echo)
	f.get(t, "refused", &refused)
	if name != "mcp" || !listChanged {
		t.Errorf("server %q, tools.listChanged %v; want mcp, true", name, listChanged)
	}
	if want := []string{"everything__echo", "mcp_search", "memory__create_entities", "memory__read_graph"}; !slices.Equal(tools, want) {
		t.Errorf("tools = %v, want %v", tools, want)
	}
	if echo != (tsCall{Text: "Echo: hello"}) {
		t.Errorf("echo = %+v", echo)
	}
	if want := (tsCall{Text: "everything__get_env is not available in this session", IsError: true}); refused != want {
		t.Errorf("get_env = %+v, want %+v", refused, want)
	}
}

// TestTSClient_TaskRequiredTool: a tool that runs as a task upstream is an
// ordinary tool to the TypeScript SDK (whose callTool refuses a tool that
// claims taskSupport required), its call answers when the task ends, and
// the task's request for input is relayed to a client that declared
// elicitation.
func TestTSClient_TaskRequiredTool(t *testing.T) {
	t.Parallel()
	f := runTSClient(t, serveEnv(t), "tasks", "--recipe", serveRecipe(t), "serve", "--agent", "researcher")
	var tools []string
	var execution, tasksCap, meta json.RawMessage
	var call tsCall
	f.get(t, "tools", &tools)
	f.get(t, "execution", &execution)
	f.get(t, "tasksCapability", &tasksCap)
	f.get(t, "call", &call)
	f.get(t, "meta", &meta)
	if want := []string{"everything__simulate_research_query"}; !slices.Equal(tools, want) {
		t.Errorf("tools = %v, want %v", tools, want)
	}
	if string(execution) != "null" || string(tasksCap) != "null" {
		t.Errorf("execution %s, tasks capability %s; want neither", execution, tasksCap)
	}
	if call != (tsCall{Text: "# Research Report: tides"}) {
		t.Errorf("call = %+v", call)
	}
	if bytes.Contains(meta, []byte("related-task")) {
		t.Errorf("the result names the upstream's task: %s", meta)
	}
	// The task's request for input reaches a client that can answer it.
	var asked []string
	var clarified tsCall
	f.get(t, "asked", &asked)
	f.get(t, "clarified", &clarified)
	if len(asked) != 1 || !strings.Contains(asked[0], `"python" could have multiple interpretations`) {
		t.Errorf("requests for input = %q", asked)
	}
	if clarified != (tsCall{Text: "# Research Report: python (snake)"}) {
		t.Errorf("clarified call = %+v", clarified)
	}
}
