//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/testenv"
)

// metaMarker is in every secret of TestMetadataWithoutSecrets.
const metaMarker = "SeCrEt"

// What servers say of themselves reaches nobody with the recipe's secrets:
// the stdio server that repeats its API_KEY, and an HTTP server that
// repeats the Authorization header it gets, in their instructions and
// tools. Not in what list, search and run print, not in mcp serve's
// instructions and tools/list, and in no file mcp writes (catalog cache,
// search index, the multiplexer's log). Ordinary words of the stdio
// server's env (info, production) stay whole in the error it gives in
// tools mode, while its key is taken out.
func TestMetadataWithoutSecrets(t *testing.T) {
	m := newMuxEnv(t)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "leaky", "tools": {"include": ["lookup", "unreachable"]}},
  {"id": "echo", "tools": {"include": ["lookup"]}}]}}}`)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "leaky": {"command": "fake-server", "env": {"FAKE_LEAKY_META": "1", "API_KEY": "${META_KEY}", "LOG_LEVEL": "info", "NODE_ENV": "production"}},
  "echo": {"url": "`+testenv.EchoAuth(t)+`", "type": "http", "headers": {"Authorization": "Bearer ${ECHO_TOKEN}"}}}}`)
	writeFile(t, filepath.Join(m.root, "agents", "tooler.yaml"),
		"mcp:\n  mode: tools\n  servers:\n    leaky: { include: [lookup, unreachable] }\n    echo: { include: [lookup] }\n")
	m.env = append(m.env, "META_KEY=sk-"+metaMarker+"-meta-0123456789", "ECHO_TOKEN=tok-"+metaMarker+"-echo-0123456789",
		"GORACE=atexit_sleep_ms=0")
	m.trust()

	if out := m.must("list", "--json"); strings.Contains(out, metaMarker) {
		t.Errorf("mcp list --json printed:\n%s", out)
	}
	for _, args := range [][]string{
		{"list", "leaky"}, {"list", "echo"}, {"list", "leaky", "--json"}, {"list", "echo", "--json"},
		{"list", "leaky.lookup", "--schema"}, {"list", "echo.lookup", "--schema"},
		{"search", "find a record"}, {"search", "look a name up"}, {"run", "-e", "mcp.list()"},
	} {
		out := m.must(args...)
		if strings.Contains(out, metaMarker) || !strings.Contains(out, "[redacted]") {
			t.Errorf("mcp %s printed:\n%s", strings.Join(args, " "), out)
		}
	}
	serveWithoutSecrets(t, m)

	files, redacted := 0, 0
	for _, dir := range []string{m.envValue("XDG_CACHE_HOME"), m.tmp} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			files++
			// The test's own directory is named after it, secret and all.
			data = bytes.ReplaceAll(data, []byte(filepath.Dir(m.tmp)), nil)
			if bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(metaMarker))) {
				t.Errorf("%s holds a secret", p)
			}
			if bytes.Contains(data, []byte("[redacted]")) {
				redacted++
			}
			return nil
		})
	}
	if files < 3 || redacted < 2 {
		t.Errorf("%d files written, %d with a mask: the cache was not written", files, redacted)
	}
}

// serveWithoutSecrets runs mcp serve for m's agent tooler and checks, as a
// client, its instructions, tools/list and the error of leaky.unreachable.
func serveWithoutSecrets(t *testing.T, m *muxEnv) {
	t.Helper()
	var stderr testenv.SyncBuffer
	tr := transport.NewStdioWithOptions(mcpBinary(t), append(slices.Clone(m.env), "MCP_SESSION="+unsetSession),
		[]string{"--recipe", m.root, "serve", "--agent", "tooler"}, transport.WithCommandStderrWriter(&stderr))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "redact-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	if strings.Contains(res.Instructions, metaMarker) || !strings.Contains(res.Instructions, "Authenticate with [redacted] before anything else.") ||
		!strings.Contains(res.Instructions, "Send [redacted] with every request.") {
		t.Errorf("instructions = %q", res.Instructions)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	raw, _ := json.Marshal(list)
	if strings.Contains(string(raw), metaMarker) || strings.Count(string(raw), "[redacted]") < 8 {
		t.Errorf("tools/list = %s", raw)
	}
	text, isErr := callText(ctx, t, c, "leaky__unreachable", nil)
	if !isErr || !strings.Contains(text, "getaddrinfo ENOTFOUND api.example.com (log level info in production over stdio, retry true, key [redacted])") ||
		strings.Contains(text, metaMarker) {
		t.Errorf("leaky__unreachable = %q (error %v)", text, isErr)
	}
	if log := stderr.String(); strings.Contains(log, metaMarker) {
		t.Errorf("mcp serve's stderr holds a secret: %s", log)
	}
}
