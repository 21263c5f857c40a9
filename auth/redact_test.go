package auth

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/auth/authtest"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// The tokens and the client secret join the connection's set when the
// round tripper reads them, and a refresh whose refusal quotes the request
// (its form and its Basic credentials) says none of them.
func TestRoundTripper_secrets(t *testing.T) {
	const id, secret = "cli", authtest.Marker + "-client+secret/="
	srv := authtest.New(t, authtest.Options{Echo: true, Clients: map[string]string{id: secret}})
	m := newManager(t)
	ep := endpoint(srv)
	ep.OAuth = &manifests.OAuth{ClientID: id, ClientSecret: secret}
	rec := login(t, m, ep)
	if rec.Client.AuthMethod != "client_secret_basic" {
		t.Fatalf("auth method %q, want client_secret_basic", rec.Client.AuthMethod)
	}

	secrets := new(redact.Set)
	hc := &http.Client{Transport: m.RoundTripper(ep, http.DefaultTransport, secrets)}
	get := func() error {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.MCPURL, nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{rec.Token.AccessToken, rec.Token.RefreshToken, secret} {
		if got := secrets.Text("x " + v); got != "x "+redact.Mask {
			t.Errorf("%q is not in the connection's set: %q", v, got)
		}
	}

	srv.FailRefresh(true)
	srv.RevokeAccessTokens()
	err := get()
	if err == nil {
		t.Fatal("the refresh did not fail")
	}
	msg := err.Error()
	basic := []string{
		base64.StdEncoding.EncodeToString([]byte(id + ":" + secret)),
		base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret))),
	}
	if !strings.Contains(msg, "temporarily_unavailable: the token service is down (Authorization: Basic [redacted], request ") ||
		strings.Contains(msg, authtest.Marker) || strings.Contains(msg, basic[0]) || strings.Contains(msg, basic[1]) {
		t.Errorf("refresh error = %q", msg)
	}
	for _, s := range srv.Secrets() {
		if strings.Contains(msg, url.QueryEscape(s)) {
			t.Errorf("refresh error holds %s, form-encoded", s)
		}
	}
}

// A login's errors hold none of its secrets: here a code exchange the
// token endpoint refuses quoting the request, which holds the code and
// the PKCE verifier, and the client's Basic credentials.
func TestManager_LoginSecrets(t *testing.T) {
	const id, secret = "cli", authtest.Marker + "-client+secret/="
	srv := authtest.New(t, authtest.Options{Echo: true, Clients: map[string]string{id: "another"}})
	m := newManager(t)
	ep := endpoint(srv)
	ep.OAuth = &manifests.OAuth{ClientID: id, ClientSecret: secret}
	_, err := m.Login(context.Background(), ep, LoginOptions{Follow: true})
	if err == nil {
		t.Fatal("the login did not fail")
	}
	msg := err.Error()
	if !strings.Contains(msg, "invalid_client") || strings.Contains(msg, authtest.Marker) || strings.Contains(msg, "code_verifier=") && !strings.Contains(msg, "code_verifier=[redacted]") {
		t.Errorf("login error = %q", msg)
	}
}
