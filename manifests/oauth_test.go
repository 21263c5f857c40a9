package manifests

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseServers_OAuth(t *testing.T) {
	src := `{"mcpServers": {
  "notes": {"url": "https://notes.example/mcp", "oauth": {
    "clientId": "cli-123", "clientSecret": "${NOTES_SECRET}", "authMethod": "client_secret_post",
    "scopes": ["notes:read", "notes:write"], "redirectUri": "http://127.0.0.1:8765/callback"}},
  "cimd": {"url": "https://cimd.example/mcp", "oauth": {"clientId": "https://app.example/client.json"}},
  "scoped": {"url": "https://scoped.example/mcp", "oauth": {"scopes": ["a"]}}
}}`
	eps, err := readServers(strings.NewReader(src), "mcp.json", "mcpServers")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*OAuth{}
	for _, ep := range eps {
		got[ep.ID] = ep.OAuth
	}
	want := map[string]*OAuth{
		"notes": {ClientID: "cli-123", ClientSecret: "${NOTES_SECRET}", AuthMethod: "client_secret_post",
			Scopes: []string{"notes:read", "notes:write"}, RedirectURI: "http://127.0.0.1:8765/callback"},
		"cimd":   {ClientID: "https://app.example/client.json"},
		"scoped": {Scopes: []string{"a"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("oauth (-want +got):\n%s", d)
	}
}

func TestParseServers_OAuthInvalid(t *testing.T) {
	for _, tc := range []struct{ name, oauth, want string }{
		{"unknown key", `{"clientID": "x"}`, `"clientID" is not a known key`},
		{"empty id", `{"clientId": ""}`, "clientId: is empty"},
		{"secret without id", `{"clientSecret": "sEcReT-1"}`, "clientSecret: is set without clientId"},
		{"bad method", `{"clientId": "x", "clientSecret": "sEcReT-1", "authMethod": "private_key_jwt"}`, "is not a known token endpoint authentication method"},
		{"none with secret", `{"clientId": "x", "clientSecret": "sEcReT-1", "authMethod": "none"}`, "sends no secret"},
		{"method without secret", `{"clientId": "x", "authMethod": "client_secret_basic"}`, "needs clientSecret"},
		{"scope with space", `{"scopes": ["a b"]}`, "is not a valid scope"},
		{"remote redirect", `{"redirectUri": "https://app.example/cb"}`, "is not a loopback redirect URI"},
		{"redirect without port", `{"redirectUri": "http://127.0.0.1/cb"}`, "is not a loopback redirect URI"},
		{"not an object", `"x"`, "must be an object"},
		{"secret type", `{"clientId": "x", "clientSecret": 12}`, "clientSecret: must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"mcpServers": {"notes": {"url": "https://notes.example/mcp", "oauth": ` + tc.oauth + `}}}`
			_, err := readServers(strings.NewReader(src), "mcp.json", "mcpServers")
			wantErrs(t, err, tc.want)
			if err != nil {
				mustNotContain(t, err.Error(), "sEcReT-1")
			}
		})
	}
	src := `{"mcpServers": {"s": {"command": "srv", "oauth": {"clientId": "x"}}}}`
	_, err := readServers(strings.NewReader(src), "mcp.json", "mcpServers")
	wantErrs(t, err, "oauth: is only for servers reached by url")
}

func TestExpand_OAuth(t *testing.T) {
	ep := Endpoint{ID: "notes", URL: "https://notes.example/mcp",
		OAuth: &OAuth{ClientID: "${ID:-cli}", ClientSecret: "${SECRET}", Scopes: []string{"a"}}}
	env := map[string]string{"SECRET": "s3"}
	got, err := ep.Expand(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if got.OAuth.ClientID != "cli" || got.OAuth.ClientSecret != "s3" {
		t.Errorf("expanded oauth = %+v", got.OAuth)
	}
	if ep.OAuth.ClientSecret != "${SECRET}" {
		t.Errorf("Expand changed its receiver: %+v", ep.OAuth)
	}
	_, err = ep.Expand(func(string) (string, bool) { return "", false })
	var mv *MissingVarError
	if !errors.As(err, &mv) || mv.Field != "oauth.clientSecret" {
		t.Errorf("missing secret variable: got %v", err)
	}
}

func TestValidLoopbackRedirect(t *testing.T) {
	for s, want := range map[string]bool{
		"http://127.0.0.1:8765/callback": true,
		"http://localhost:1/":            true,
		"http://[::1]:9000/cb":           true,
		"http://127.0.0.1/callback":      false,
		"https://127.0.0.1:8765/cb":      false,
		"http://example.com:8765/cb":     false,
		"http://127.0.0.1:8765/cb?x=1":   false,
		"http://127.0.0.1:0/cb":          false,
	} {
		if got := ValidLoopbackRedirect(s); got != want {
			t.Errorf("ValidLoopbackRedirect(%q) = %v, want %v", s, got, want)
		}
	}
}
