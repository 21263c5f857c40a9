package manifests

import (
	"reflect"
	"testing"
)

// Committable takes every literal credential out of an entry, by the rules
// that say what is secret, and leaves configuration and references alone.
func TestCommittable(t *testing.T) {
	e := Endpoint{ID: "gh", Command: "npx",
		Args: []string{"-y", "server", "--api-key=abcd1234efgh5678ijkl", "--token", "Zx81mQ2pL9vR4tY7wK3s", "--region", "eu"},
		Env: map[string]string{"GITHUB_TOKEN": "ghp_abcdefghijklmnop1234567890ABCD", "LOG_LEVEL": "info",
			"OTHER": "${OTHER_TOKEN}", "AUTH_ENABLED": "true", "HOOK": "sk_live_51HxYz2eZvKYlo2C0a1b2c3d4"},
		Headers: map[string]string{"Authorization": "Bearer xyz", "X-Region": "europe"},
		OAuth:   &OAuth{ClientID: "app", ClientSecret: "s3cr3tS3cr3tS3cr3t"},
	}
	got, moved := e.Committable()
	want := Endpoint{ID: "gh", Command: "npx",
		Args: []string{"-y", "server", "--api-key=${GH_API_KEY}", "--token", "${GH_ARG4}", "--region", "eu"},
		Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG_LEVEL": "info",
			"OTHER": "${OTHER_TOKEN}", "AUTH_ENABLED": "true", "HOOK": "${HOOK}"},
		Headers: map[string]string{"Authorization": "${GH_AUTHORIZATION}", "X-Region": "europe"},
		OAuth:   &OAuth{ClientID: "app", ClientSecret: "${GH_CLIENT_SECRET}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("committable:\n got %+v\nwant %+v", got, want)
	}
	wantMoved := []Moved{{"env GITHUB_TOKEN", "GITHUB_TOKEN"}, {"env HOOK", "HOOK"}, {"header Authorization", "GH_AUTHORIZATION"},
		{"args[2]", "GH_API_KEY"}, {"args[4]", "GH_ARG4"}, {"oauth.clientSecret", "GH_CLIENT_SECRET"}}
	if !reflect.DeepEqual(moved, wantMoved) {
		t.Errorf("moved %v, want %v", moved, wantMoved)
	}
	if e.Env["GITHUB_TOKEN"] != "ghp_abcdefghijklmnop1234567890ABCD" || e.OAuth.ClientSecret != "s3cr3tS3cr3tS3cr3t" {
		t.Error("the receiver changed")
	}
	u := Endpoint{ID: "hook", URL: "https://hooks.example.com/mcp?key=Zx81mQ2pL9vR4tY7wK3s"}
	if got, moved := u.Committable(); got.URL != "${HOOK_URL}" || len(moved) != 1 {
		t.Errorf("url: %q %v", got.URL, moved)
	}
	plain := Endpoint{ID: "files", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/you/src"}}
	if got, moved := plain.Committable(); !reflect.DeepEqual(got, plain) || moved != nil {
		t.Errorf("plain: %+v %v", got, moved)
	}
}

// ImportFile tells a program's file by its place, and refuses one it
// cannot tell.
func TestClientOf(t *testing.T) {
	for path, want := range map[string]*client{
		"/h/.config/Claude/claude_desktop_config.json": claudeDesktop, "/h/.cursor/mcp.json": cursor,
		"/h/.config/Code/User/mcp.json": vscode, "/p/.vscode/mcp.json": vscode, "/h/.codex/config.toml": codex,
		"/h/.gemini/settings.json": gemini, "/h/.config/zed/settings.json": zed, "/p/.mcp.json": claudeCode,
		"/h/.claude.json": claudeUser, "/h/.codeium/windsurf/mcp_config.json": windsurf,
		"/h/.config/opencode/opencode.jsonc": opencode, "/x/servers.json": ownShape,
	} {
		if got, err := clientOf(path); got != want || err != nil {
			t.Errorf("%s: %v %v", path, got, err)
		}
	}
	for _, path := range []string{"/x/settings.json", "/x/servers.yaml"} {
		if _, err := clientOf(path); err == nil {
			t.Errorf("%s: no error", path)
		}
	}
}
