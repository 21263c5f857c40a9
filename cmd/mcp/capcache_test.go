package main

import (
	"context"
	"encoding/json"
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
)

// urlElicitor answers nothing: it is there to declare URL elicitation.
type urlElicitor struct{}

func (urlElicitor) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
}

// serveOnce runs mcp serve for a client that declares URL elicitation,
// lists the agent's tools and ends it.
func serveOnce(t *testing.T, env []string, recipe, agent string) []string {
	t.Helper()
	var stderr testenv.SyncBuffer
	tr := transport.NewStdioWithOptions(mcpBinary(t), env, []string{"--recipe", recipe, "serve", "--agent", agent},
		transport.WithCommandStderrWriter(&stderr))
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}
	c := client.NewClient(tr, client.WithClientCapabilities(caps), client.WithElicitationHandler(urlElicitor{}),
		client.WithDiscoverTimeout(60*time.Second))
	defer func() {
		_ = c.Close()
		if t.Failed() {
			t.Logf("mcp serve stderr:\n%s", stderr.String())
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "capcache-test", Version: "1"}
	init.Params.Capabilities = caps
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return listNames(ctx, t, c)
}

// A tool list depends on what the connection declared: server-everything
// offers trigger-url-elicitation only to a client that declared URL
// elicitation, as mcp serve's connections do. After mcp serve has listed
// it, a cli session (whose connections do not declare it) neither
// searches, lists, runs nor calls it: the four verbs agree with what the
// session's own connection has.
func TestSession_ToolsOfItsOwnCapabilities(t *testing.T) {
	t.Parallel()
	env := serveEnv(t)
	tmp := t.TempDir()
	env = append(env, "TMPDIR="+tmp, "XDG_RUNTIME_DIR=")
	t.Cleanup(func() { stopDaemons(t, tmp) })
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json":       `{"name": "caps", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "everything", "tools": {"include": ["*"]}}]}}}`,
		"mcp.json":           `{"mcpServers": {"everything": {"command": "${NODE}", "args": ["${EVERYTHING_JS}", "stdio"]}}}`,
		"agents/tooler.yaml": "mcp:\n  mode: tools\n  servers:\n    everything:\n      include: [\"*\"]\n",
		"agents/shell.yaml":  "mcp:\n  mode: cli\n  servers:\n    everything:\n      include: [\"*\"]\n",
	})
	if code, _, stderr := runMCP(t, env, "trust", dir); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}
	const tool = "trigger-url-elicitation"
	if served := serveOnce(t, env, dir, "tooler"); !slices.Contains(served, "everything__trigger_url_elicitation") {
		t.Fatalf("mcp serve offers %v, without %s: the server no longer shows the difference", served, tool)
	}

	code, stdout, stderr := runMCP(t, env, "--recipe", dir, "session", "start", "--agent", "shell")
	id, ok := strings.CutPrefix(strings.TrimSpace(stdout), "export MCP_SESSION=")
	if code != 0 || !ok {
		t.Fatalf("session start: exit %d: %s %s", code, stdout, stderr)
	}
	in := append(slices.Clip(env), session.EnvVar+"="+id)

	code, stdout, stderr = runMCP(t, in, "search", "--json", "url", "elicitation")
	if code != 0 || strings.Contains(stdout, tool) {
		t.Errorf("mcp search: exit %d, offers %s: %s %s", code, tool, stdout, stderr)
	}
	code, stdout, stderr = runMCP(t, in, "run", "-e", "Object.keys(everything)")
	var keys []string
	if code != 0 || json.Unmarshal([]byte(stdout), &keys) != nil || slices.Contains(keys, tool) || !slices.Contains(keys, "echo") {
		t.Errorf("mcp run: exit %d, tools %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = runMCP(t, in, "list", "everything")
	if code != 0 || strings.Contains(stdout, tool) || !strings.Contains(stdout, "echo") {
		t.Errorf("mcp list: exit %d, offers %s: %s %s", code, tool, stdout, stderr)
	}
	code, _, stderr = runMCP(t, in, "call", "everything."+tool)
	if code != exit.NotAvailable || !strings.Contains(stderr, "everything."+tool+" is not available in this session") {
		t.Errorf("mcp call: exit %d: %s", code, stderr)
	}
}
