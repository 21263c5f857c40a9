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
	var echo, refused, misspelled, noMessage tsCall
	f.get(t, "serverName", &name)
	f.get(t, "toolsListChanged", &listChanged)
	f.get(t, "tools", &tools)
	f.get(t, "echo", &echo)
	f.get(t, "refused", &refused)
	f.get(t, "misspelled", &misspelled)
	f.get(t, "noMessage", &noMessage)
	if name != "mcp" || !listChanged {
		t.Errorf("server %q, tools.listChanged %v; want mcp, true", name, listChanged)
	}
	if want := []string{"everything__echo", "mcp_search", "memory__create_entities", "memory__read_graph"}; !slices.Equal(tools, want) {
		t.Errorf("tools = %v, want %v", tools, want)
	}
	if echo != (tsCall{Text: "Echo: hello"}) {
		t.Errorf("echo = %+v", echo)
	}
	if want := (tsCall{Text: "everything__get_env is not one of the tools this server lists; mcp_search finds more tools", IsError: true}); refused != want {
		t.Errorf("get_env = %+v, want %+v", refused, want)
	}
	if want := (tsCall{Text: "everything__ecoh is not one of the tools this server lists (did you mean everything__echo?); mcp_search finds more tools", IsError: true}); misspelled != want {
		t.Errorf("ecoh = %+v, want %+v", misspelled, want)
	}
	if want := (tsCall{Text: "everything__echo: missing required argument message; the tool's signature is everything__echo(message: string)", IsError: true}); noMessage != want {
		t.Errorf("echo without a message = %+v, want %+v", noMessage, want)
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

// progressRecipe is a recipe whose agent "progress" is in tools mode with
// everything's trigger-long-running-operation and the fake server's meta
// (FAKE_META) at the start; it is trusted in env.
func progressRecipe(t *testing.T, env []string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json": `{"name": "progress", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "everything", "tools": {"include": ["*"]}}, {"id": "fake", "tools": {"include": ["*"]}}]}}}`,
		"mcp.json": `{"mcpServers": {
  "everything": {"command": "${NODE}", "args": ["${EVERYTHING_JS}", "stdio"]},
  "fake": {"command": "fake-server", "env": {"FAKE_META": "1"}}}}`,
		"agents/progress.yaml": "mcp:\n  mode: tools\n  servers:\n    everything:\n      include: [trigger-long-running-operation]\n    fake:\n      include: [meta]\n",
	})
	if code, _, stderr := runMCP(t, env, "trust", dir); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}
	return dir
}

type tsProgress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
}

type tsOutcome struct {
	tsCall
	Thrown string `json:"thrown"`
}

// TestTSClient_Progress: a client's progressToken and other _meta keys go
// upstream through mcp serve, progress comes back under the client's
// token, and both the client's timeout (resetTimeoutOnProgress) and
// serve's --timeout are reset by it; a silence longer than --timeout is a
// timeout.
func TestTSClient_Progress(t *testing.T) {
	t.Parallel()
	env := serveEnv(t)
	recipe := progressRecipe(t, env)
	// serve lists its servers within --timeout at start; listed once
	// before, they come from the catalog cache, so that a slow start of
	// server-everything under load does not leave its tools out.
	if code, _, stderr := runMCP(t, append(env, "MCP_NO_MUX=1"), "--recipe", recipe, "list", "everything"); code != 0 {
		t.Fatalf("mcp list: exit %d: %s", code, stderr)
	}
	f := runTSClient(t, env, "progress", "--recipe", recipe, "--timeout", "3s", "serve", "--agent", "progress")
	var withProgress, resetting, silent, meta tsOutcome
	var reports []tsProgress
	var resets int
	f.get(t, "withProgress", &withProgress)
	f.get(t, "reports", &reports)
	f.get(t, "resetting", &resetting)
	f.get(t, "resets", &resets)
	f.get(t, "silent", &silent)
	f.get(t, "meta", &meta)
	done := "Long running operation completed"
	if !strings.HasPrefix(withProgress.Text, done) || withProgress.IsError {
		t.Errorf("call with onprogress = %+v", withProgress)
	}
	// The SDK handles a notification a moment after the response it came
	// with, so the last report, sent just before the result, may find the
	// call over: every report but the last must arrive.
	want := []tsProgress{{1, 4}, {2, 4}, {3, 4}, {4, 4}}
	if len(reports) < len(want)-1 || !slices.Equal(reports, want[:len(reports)]) {
		t.Errorf("progress = %v, want %v", reports, want)
	}
	if !strings.HasPrefix(resetting.Text, done) || resetting.IsError || resets < 7 {
		t.Errorf("4s call under a 2s client timeout reset by progress = %+v after %d reports", resetting, resets)
	}
	if want := "everything__trigger_long_running_operation timed out after 3s: server everything did not answer in time"; silent.Text != want || !silent.IsError {
		t.Errorf("5s of silence under serve --timeout 3s = %+v, want the tool error %q", silent, want)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal([]byte(meta.Text), &sent); err != nil {
		t.Fatalf("fake__meta = %+v: %v", meta, err)
	}
	if got := string(sent["com.example/trace"]); got != `{"id":7}` {
		t.Errorf("_meta upstream = %s, want com.example/trace as the client sent it", meta.Text)
	}
	if _, ok := sent["progressToken"]; ok {
		t.Errorf("_meta upstream = %s: a progress token the client did not ask for", meta.Text)
	}
}
