package manifests

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/redact"
)

func TestEndpoint_AddSecrets(t *testing.T) {
	ep := Endpoint{
		ID:      "x",
		URL:     "https://tok-user:pa55word@api.example/mcp?key=qk-123456&mode=fast",
		Env:     map[string]string{"API_KEY": "env-key-1", "DEBUG": "1"},
		Headers: map[string]string{"Authorization": "Bearer hdr-token-1", "X-Api-Key": "hdr-key-1"},
		OAuth:   &OAuth{ClientID: "cli", ClientSecret: "cs-secret-1"},
	}
	var s redact.Set
	ep.AddSecrets(&s)
	for _, v := range []string{"env-key-1", "hdr-token-1", "Bearer hdr-token-1", "hdr-key-1", "pa55word",
		"qk-123456", "cs-secret-1",
		base64.StdEncoding.EncodeToString([]byte("tok-user:pa55word")),
		base64.StdEncoding.EncodeToString([]byte("cli:cs-secret-1"))} {
		if got := s.Text("<" + v + ">"); got != "<"+redact.Mask+">" {
			t.Errorf("%q is not a secret: %q", v, got)
		}
	}
	// A user name with a password, and a query value that says nothing
	// of a secret, are configuration.
	for _, v := range []string{"1", "api.example", "cli", "https", "tok-user", "fast"} {
		if got := s.Text(v); got != v {
			t.Errorf("%q was taken as a secret: %q", v, got)
		}
	}
}

// What a ${VAR} expanded to is a secret, in every field, when the
// variable's name says so or the value looks like a credential (a URL
// adding its credentials); a default is not, and variables that no ${VAR}
// names are not.
func TestEndpoint_ExpandSecrets(t *testing.T) {
	env := map[string]string{"TOKEN": "arg-token-1", "HOST": "internal.example", "UNUSED_KEY": "unused-value",
		"OPENAI": "sk-AbCdEf0123456789xyz", "DB": "postgres://u:pw0rd-1@db.example/x", "LEVEL": "info"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	ep := Endpoint{ID: "x", Command: "server", Args: []string{"--token=${TOKEN}", "--mode=${MODE:-quick-default}", "--key=${OPENAI}", "--db=${DB}"},
		Env: map[string]string{"SERVICE": "https://${HOST}/api", "VERBOSITY": "${LEVEL}"}}
	var s redact.Set
	out, err := ep.ExpandSecrets(lookup, &s)
	if err != nil {
		t.Fatal(err)
	}
	if out.Args[0] != "--token=arg-token-1" {
		t.Errorf("args = %q", out.Args)
	}
	got := s.Text("--token=arg-token-1 on internal.example (env https://internal.example/api), --mode=quick-default, unused-value, " +
		"--key=sk-AbCdEf0123456789xyz --db=postgres://u:pw0rd-1@db.example/x at level info")
	want := "--token=[redacted] on internal.example (env https://internal.example/api), --mode=quick-default, unused-value, " +
		"--key=[redacted] --db=postgres://u:[redacted]@db.example/x at level info"
	if got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}

	var none redact.Set
	if _, err := (Endpoint{ID: "x", Command: "server", Args: []string{"${MISSING}"}}).ExpandSecrets(lookup, &none); err == nil ||
		strings.Contains(err.Error(), "arg-token-1") {
		t.Errorf("err = %v", err)
	}
}
