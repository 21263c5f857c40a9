package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/testenv"
)

// mcp serve in front of servers that speak only MCP 2026-07-28, over stdio
// and streamable HTTP: their tools are served and called as any other's,
// and a tool whose x-mcp-header annotations are invalid is not served,
// with one warning.
func TestServe_modernUpstreams(t *testing.T) {
	t.Parallel()
	recipe := t.TempDir()
	files := map[string]string{
		"package.json": `{ "pi": { "mcp": { "manifests": ["mcp.json"], "servers": [
  { "id": "modern", "tools": { "include": ["echo"] } },
  { "id": "modern-http", "tools": { "include": ["echo"] } },
  { "id": "raw", "tools": { "include": ["*"] } } ] } } }`,
		"mcp.json": `{ "mcpServers": {
  "modern": { "command": "modern-server" },
  "modern-http": { "url": "` + testenv.ServeModern(t) + `", "type": "http" },
  "raw": { "url": "` + testenv.NewRawModern(t).URL + `", "type": "http" } } }`,
		"agents/tooler.yaml": "mcp:\n  mode: tools\n  servers:\n    modern: { include: [echo] }\n    modern-http: { include: [echo] }\n    raw: { include: [\"*\"] }\n",
	}
	for name, body := range files {
		p := filepath.Join(recipe, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	env := []string{session.EnvVar + "=" + unsetSession, "HOME=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GORACE=atexit_sleep_ms=0"}
	if code, _, stderr := runMCP(t, env, "trust", recipe); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}

	c, ctx, stderr := startServe(t, env, []string{"--recipe", recipe, "serve", "--agent", "tooler"}, "serve-test",
		client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	want := []string{"modern__echo", "modern_http__echo", "raw__odd", "raw__pending", "raw__route"}
	if got := listNames(ctx, t, c); !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
	for _, name := range []string{"modern__echo", "modern_http__echo"} {
		if text, isErr := callText(ctx, t, c, name, map[string]any{"message": "hi"}); isErr || text != "Echo: hi" {
			t.Errorf("%s = %q (error %v)", name, text, isErr)
		}
	}
	if text, isErr := callText(ctx, t, c, "raw__route", map[string]any{"region": "eu"}); isErr || text != "routed" {
		t.Errorf("raw__route = %q (error %v)", text, isErr)
	}
	if n := strings.Count(stderr.String(), "raw.badheader is not offered"); n != 1 {
		t.Errorf("%d warnings about raw.badheader in %q", n, stderr.String())
	}
}
