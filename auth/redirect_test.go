package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsh/mcp/auth/authtest"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/redirect"
	"github.com/mcpsh/mcp/manifests"
)

// elsewhere is a server of another origin that keeps every request it
// gets, headers and body, as text; and one that redirects everything to it
// with status.
func elsewhere(t *testing.T, status int) (hop string, seen func() []string) {
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n", r.Method, r.URL)
		_ = r.Header.Write(&b)
		b.Write(body)
		mu.Lock()
		got = append(got, b.String())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(other.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), status)
	}))
	t.Cleanup(redirector.Close)
	return redirector.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A login's first request, which carries the endpoint's headers and an
// initialize, is not sent on to another origin by a 307: the login fails
// with the refusal, exit 4, and the other origin sees nothing.
func TestManager_LoginRefusesRedirectAway(t *testing.T) {
	hop, seen := elsewhere(t, http.StatusTemporaryRedirect)
	ep := manifests.Endpoint{ID: "notes", URL: hop + "/mcp", Type: "http", Headers: map[string]string{"X-Api-Key": "loginkey-0123456789"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := newManager(t).Login(ctx, ep, LoginOptions{Follow: true, Wait: 5 * time.Second})
	var re *redirect.Error
	if !errors.As(err, &re) || exit.Code(err) != exit.Upstream || !strings.Contains(err.Error(), "to another origin") {
		t.Errorf("login = %v (exit %d), want a refused redirect, exit 4", err, exit.Code(err))
	}
	if got := seen(); len(got) != 0 {
		t.Errorf("the other origin got %q", got)
	}
}

// A refresh whose token endpoint answers 307 to another origin is not sent
// there: the refresh token, in the body, stays home.
func TestRoundTripper_RefreshRefusesRedirectAway(t *testing.T) {
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	ep := endpoint(srv)
	rec := login(t, m, ep)
	hop, seen := elsewhere(t, http.StatusTemporaryRedirect)
	rec.TokenEndpoint = hop + "/token"
	if err := m.Store.Put(rec); err != nil {
		t.Fatal(err)
	}
	srv.RevokeAccessTokens()
	_, err := call(t, m, ep, "whoami")
	if err == nil || !strings.Contains(err.Error(), "refused a redirect from "+hop) {
		t.Errorf("call = %v, want the refresh's redirect refused", err)
	}
	for _, r := range seen() {
		if strings.Contains(r, rec.Token.RefreshToken) || strings.Contains(r, "refresh_token") {
			t.Errorf("the other origin got:\n%s", r)
		}
	}
	if got := seen(); len(got) != 0 {
		t.Errorf("the other origin got %d requests", len(got))
	}
}
