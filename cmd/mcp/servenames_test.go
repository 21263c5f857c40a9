package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/toolsmode"
)

// variantsRecipe is a recipe whose two servers list delete_all, delete-all
// and Delete_All: the package excludes delete_all from f, and the agent
// tooler (tools mode) excludes DELETE-ALL from g, whose tools it defers.
var variantsRecipe = map[string]string{
	"package.json": `{ "pi": { "mcp": { "manifests": ["mcp.json"], "servers": [
  { "id": "f", "tools": { "include": ["*"], "exclude": ["delete_all"] } },
  { "id": "g", "tools": { "include": ["*"] } }
] } } }`,
	"mcp.json": `{ "mcpServers": {
  "f": { "command": "fake-server", "env": { "FAKE_VARIANTS": "1", "FAKE_EVENTS": "${FAKE_EVENTS}" } },
  "g": { "command": "fake-server", "env": { "FAKE_VARIANTS": "1", "FAKE_EVENTS": "${FAKE_EVENTS}" } }
} }`,
	"agents/tooler.yaml": `mcp:
  mode: tools
  servers:
    f:
      include: ["*"]
    g:
      include: ["*"]
      exclude: [DELETE-ALL]
      defer: ["*"]
`,
}

// In tools mode no spelling of an excluded tool is listed, found by
// mcp_search or called: the server records no call of any of them.
func TestServe_excludedVariants(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	for name, text := range variantsRecipe {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	events := filepath.Join(home, "events")
	env := []string{session.EnvVar + "=" + unsetSession, "HOME=" + home, "FAKE_EVENTS=" + events,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	if code, _, stderr := runMCP(t, env, "trust", dir); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}
	c, ctx, _ := startServe(t, env, []string{"--recipe", dir, "serve", "--agent", "tooler"}, "serve-test",
		client.WithDiscoverTimeout(60*time.Second))
	listed := listNames(ctx, t, c)
	if !strings.Contains(strings.Join(listed, " "), "f__echo") {
		t.Fatalf("tools/list = %v, want f's tools", listed)
	}
	for _, name := range listed {
		if strings.Contains(strings.ToLower(name), "delete") {
			t.Errorf("tools/list holds %s", name)
		}
	}
	sr, err := c.CallTool(ctx, callRequest(toolsmode.SearchTool, map[string]any{"query": "delete every record"}))
	if err != nil {
		t.Fatalf("mcp_search: %v", err)
	}
	found, _ := json.Marshal(sr.StructuredContent)
	if strings.Contains(strings.ToLower(string(found)), "delete") {
		t.Errorf("mcp_search found %s", found)
	}
	// Every name a client could try: plain, and as a hash would spell it.
	for _, server := range []string{"f", "g"} {
		for _, tool := range []string{"delete_all", "delete-all", "Delete_All"} {
			for _, name := range []string{toolsmode.Name(server, tool), toolsmode.HashedName(server, tool)} {
				if text, isErr := callText(ctx, t, c, name, nil); !isErr || !strings.Contains(text, "is not one of the tools this server lists") || strings.Contains(text, "did you mean") {
					t.Errorf("%s = %q (error %v), want the not-available tool error, suggesting nothing", name, text, isErr)
				}
			}
		}
	}
	if text, isErr := callText(ctx, t, c, "f__echo", map[string]any{"message": "kept"}); isErr || text != "kept" {
		t.Errorf("f__echo = %q (error %v)", text, isErr)
	}
	if data, err := os.ReadFile(events); err == nil && strings.Contains(string(data), "called") {
		t.Errorf("the server was called:\n%s", data)
	}
}
