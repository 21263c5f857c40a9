package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// toolText is everything of a tool that reaches a consumer: its raw JSON
// and its decoded fields.
func toolText(tl catalog.Tool) string {
	return strings.Join([]string{tl.Name, tl.Title, tl.Description, string(tl.InputSchema), string(tl.OutputSchema), string(tl.Raw)}, "\n")
}

// A server that repeats its Authorization header in its instructions and
// in its tool's title, description, a parameter's description and default
// gives none of it to the connection's users, on either revision: the
// secret is taken out as the connection reads it, and the tool's raw JSON
// stays valid.
func TestConnect_metadataWithoutSecrets(t *testing.T) {
	t.Parallel()
	const token = "tok-SeCrEt-0123456789"
	url := testenv.EchoAuth(t)
	for _, rev := range []string{protocolVersion, Modern} {
		t.Run(rev, func(t *testing.T) {
			ep := manifests.Endpoint{ID: "echo", URL: url, Type: "http", ProtocolVersion: rev,
				Headers: map[string]string{"Authorization": "Bearer " + token}}
			u := connect(t, ep, Options{})
			if got := u.Instructions(); strings.Contains(got, "SeCrEt") || got != "Send [redacted] with every request." {
				t.Errorf("instructions = %q", got)
			}
			tl, ok := listTools(t, u)["lookup"]
			if !ok {
				t.Fatal("lookup is not listed")
			}
			if all := toolText(tl); strings.Contains(all, "SeCrEt") {
				t.Errorf("the tool holds the secret:\n%s", all)
			}
			if tl.Title != "Lookup as [redacted]" || tl.Description != "Looks a name up, authorized by [redacted]" {
				t.Errorf("title %q, description %q", tl.Title, tl.Description)
			}
			var schema struct {
				Properties struct {
					Q struct{ Description, Default string } `json:"q"`
				} `json:"properties"`
			}
			if !json.Valid(tl.Raw) || json.Unmarshal(tl.InputSchema, &schema) != nil ||
				schema.Properties.Q.Description != "the name, sent with [redacted]" || schema.Properties.Q.Default != "[redacted]" {
				t.Errorf("raw %s, schema %s", tl.Raw, tl.InputSchema)
			}
			if res := call(t, u, "lookup", `{"q":"ada"}`); text(t, res) != "found ada" {
				t.Errorf("lookup = %s", res.Raw)
			}
		})
	}
}

// Where taking a secret out of a tool's JSON text would break it (the
// secret is a number, or runs past the end of a string), each string and
// number is taken out on its own; a tool whose JSON still holds a secret
// then is not offered, with one warning naming it.
func TestListTools_secretsThatBreakJSON(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("raw", "1.0.0")
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	s.AddTool(mcp.NewToolWithRawSchema("pinned", "Takes the pin 987654321",
		json.RawMessage(`{"type":"object","properties":{"pin":{"type":"integer","default":987654321},"mode":{"type":"string"}}}`)), ok)
	s.AddTool(mcp.NewToolWithRawSchema("tangled", "",
		json.RawMessage(`{"type":"object","properties":{"x":{"enum":[12345678,"ab"]}}}`)), ok)
	s.AddTool(mcp.NewTool("plain"), ok)
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
	t.Cleanup(ts.Close)
	secrets := new(redact.Set)
	secrets.Add("987654321", `12345678,"ab`)
	var warnings journal[string]
	u := connect(t, manifests.Endpoint{ID: "raw", URL: ts.URL + "/mcp", Type: "http"}, Options{Secrets: secrets, OnWarning: warnings.add})
	tools := listTools(t, u)
	pinned, found := tools["pinned"]
	if !found || tools["plain"].Name != "plain" {
		t.Fatalf("tools = %v", tools)
	}
	if _, listed := tools["tangled"]; listed {
		t.Errorf("tangled is offered: %s", tools["tangled"].Raw)
	}
	want := `{"type":"object","properties":{"pin":{"type":"integer","default":"[redacted]"},"mode":{"type":"string"}}}`
	if string(pinned.InputSchema) != want || pinned.Description != "Takes the pin [redacted]" || !json.Valid(pinned.Raw) ||
		strings.Contains(string(pinned.Raw), "987654321") {
		t.Errorf("pinned: schema %s, description %q, raw %s", pinned.InputSchema, pinned.Description, pinned.Raw)
	}
	listTools(t, u)
	got := warnings.all()
	if len(got) != 1 || !strings.HasPrefix(got[0], "raw.tangled is not offered: ") || strings.Contains(got[0], "12345678") {
		t.Errorf("warnings = %q", got)
	}
}

func TestRedactJSON(t *testing.T) {
	var s redact.Set
	s.Add("hunter22", "987654321", `abcd"`)
	for _, c := range []struct {
		name, in, want string
		refused        bool
	}{
		{"no secret", `{"b": 1, "a": "x"}`, `{"b": 1, "a": "x"}`, false},
		{"in strings, escaped or not", `{"z": "pw hunter22", "a": ["\u0068unter22", "x\nhunter22", "\u0068"]}`,
			`{"z": "pw [redacted]", "a": ["[redacted]", "x\n[redacted]", "\u0068"]}`, false},
		{"a number", `{"z": 1, "default": 987654321, "a": "hunter22"}`, `{"z": 1, "default": "[redacted]", "a": "[redacted]"}`, false},
		{"a key", `{"hunter22": 987654321}`, `{"[redacted]": "[redacted]"}`, false},
		{"past a string's end", `{"d": "key abcd", "e": "f"}`, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := redactJSON(json.RawMessage(c.in), &s)
			if c.refused {
				if err == nil {
					t.Errorf("redactJSON(%s) = %s, want it refused", c.in, got)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Errorf("redactJSON(%s) = %s, %v; want %s", c.in, got, err, c.want)
			}
		})
	}
}

// The cache hint a server gives goes without the connection's secrets too.
func TestSetHint_withoutSecrets(t *testing.T) {
	u := newConn(context.Background(), "x", manifests.TransportHTTP, Options{Logger: slog.New(slog.DiscardHandler)})
	defer u.Close()
	u.secret = new(redact.Set)
	u.secret.Add("scope-9876")
	u.setHint(nil, "scope-9876")
	if got := u.CacheHint().Scope; got != redact.Mask {
		t.Errorf("scope = %q", got)
	}
}

// FuzzRedactJSON: whatever JSON a server sends and whatever the secrets,
// redactJSON never panics, refuses only JSON that still holds a secret,
// and what it gives back is valid JSON in which the set finds nothing.
func FuzzRedactJSON(f *testing.F) {
	f.Add(`{"d": "key hunter22", "n": 987654321}`, "hunter22", "987654321")
	f.Add(`{"d": "key abcd", "e": "f"}`, `abcd"`, "")
	f.Add(`["\u0068unter22", "x\nhunter22"]`, "hunter22", `"x`)
	f.Add(`{"enum":[12345678,"ab"]}`, `12345678,"ab`, "")
	f.Fuzz(func(t *testing.T, raw, a, b string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var s redact.Set
		s.Add(a, b)
		out, err := redactJSON(json.RawMessage(raw), &s)
		if err != nil {
			if !errors.Is(err, errSecretInJSON) && !errors.Is(err, errSecretsInJSON) {
				t.Fatalf("redactJSON(%s): %v", raw, err)
			}
			return
		}
		if !json.Valid(out) || s.Text(string(out)) != string(out) {
			t.Fatalf("redactJSON(%s) = %s", raw, out)
		}
	})
}
