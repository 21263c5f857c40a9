package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTSClient_RelaysOnlySafeURLs: server-everything's requests that a
// person open a URL reach a TypeScript SDK client that declared URL mode
// only for https URLs and http ones to this machine, without credentials,
// and under the server's id; for any other URL the client is not asked
// and the server is told why.
func TestTSClient_RelaysOnlySafeURLs(t *testing.T) {
	t.Parallel()
	env := serveEnv(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json":      `{"name": "asking", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "everything", "tools": {"include": ["*"]}}]}}}`,
		"mcp.json":          `{"mcpServers": {"everything": {"command": "${NODE}", "args": ["${EVERYTHING_JS}", "stdio"]}}}`,
		"agents/asker.yaml": "mcp:\n  mode: tools\n  servers:\n    everything:\n      include: [trigger-url-elicitation]\n",
	})
	if code, _, stderr := runMCP(t, env, "trust", dir); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}
	cases := []struct {
		url    string
		reason string // "" for relayed
	}{
		{"https://example.com/x", ""},
		{"http://127.0.0.1:8080/cb", ""},
		{"javascript:alert(1)", "its scheme is javascript"},
		{"file:///etc/passwd", "its scheme is file"},
		{"http://example.com/", "it is http to a host other than this machine"},
		{"https://u:p@example.com/", "it holds credentials"},
	}
	var urls []string
	for _, c := range cases {
		urls = append(urls, c.url)
	}
	list, _ := json.Marshal(urls)
	f := runTSClient(t, append(env, "RELAY_URLS="+string(list)), "relayurl", "--recipe", dir, "serve", "--agent", "asker")
	var calls []struct {
		URL   string `json:"url"`
		Asked []struct {
			Mode, Message, URL string
		} `json:"asked"`
		Result tsCall `json:"result"`
	}
	f.get(t, "calls", &calls)
	if len(calls) != len(cases) {
		t.Fatalf("%d calls, want %d", len(calls), len(cases))
	}
	for i, c := range cases {
		got := calls[i]
		if c.reason == "" {
			if len(got.Asked) != 1 || got.Asked[0].URL != c.url || got.Asked[0].Mode != "url" || got.Asked[0].Message != "everything: Open this" ||
				!strings.Contains(got.Result.Text, "User completed the URL elicitation flow") {
				t.Errorf("%s: the client was asked %+v; result %+v", c.url, got.Asked, got.Result)
			}
			continue
		}
		if len(got.Asked) > 0 {
			t.Errorf("%s was relayed to the client: %+v", c.url, got.Asked)
		}
		if !strings.Contains(got.Result.Text, "mcp did not relay the URL: "+c.reason) {
			t.Errorf("%s: the server's result %+v does not say it was told %q", c.url, got.Result, c.reason)
		}
	}
}
