package auth

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/auth/authtest"
	"github.com/mcpsh/mcp/manifests"
)

// status401 says whether the MCP server refuses token with 401.
func status401(t *testing.T, srv *authtest.Server, token string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.MCPURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusUnauthorized
}

func TestManager_Logout(t *testing.T) {
	secret := authtest.Marker + "-configured-secret"
	for _, tc := range []struct {
		name   string
		method string // of a configured client; "" registers one
	}{
		{"registered public client", ""},
		{"client_secret_basic", "client_secret_basic"},
		{"client_secret_post", "client_secret_post"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := authtest.Options{}
			if tc.method != "" {
				opts = authtest.Options{NoRegistration: true, Clients: map[string]string{"pre": secret},
					ClientsAuthMethod: tc.method, AuthMethods: []string{tc.method}}
			}
			srv := authtest.New(t, opts)
			m := newManager(t)
			ep := endpoint(srv)
			if tc.method != "" {
				ep.OAuth = &manifests.OAuth{ClientID: "pre", ClientSecret: secret, AuthMethod: tc.method}
			}
			rec := login(t, m, ep)
			if rec.RevocationEndpoint != srv.Issuer+"/revoke" {
				t.Errorf("revocation endpoint = %q", rec.RevocationEndpoint)
			}
			if status401(t, srv, rec.Token.AccessToken) {
				t.Fatal("the access token is refused before logout")
			}
			res, err := m.Logout(context.Background(), "notes")
			if err != nil {
				t.Fatal(err)
			}
			if res.Removed != 1 || res.Revoked != 2 || res.NotRevocable != 0 || len(res.Warnings) != 0 {
				t.Errorf("logout = %+v", res)
			}
			// The refresh token first, which ends the grant and so its
			// access token too; then the access token, known no more.
			want := []authtest.Revocation{{Hint: "refresh_token", Revoked: "refresh_token"}, {Hint: "access_token", Revoked: "unknown"}}
			if got := srv.Stats().Revocations; !slices.Equal(got, want) {
				t.Errorf("revocations = %+v, want %+v", got, want)
			}
			if !status401(t, srv, rec.Token.AccessToken) {
				t.Error("the access token still works after logout")
			}
			if left, _ := m.Store.Records("notes"); len(left) != 0 {
				t.Errorf("%d records left after logout", len(left))
			}
		})
	}
}

func TestManager_LogoutWithoutRevocation(t *testing.T) {
	t.Run("not offered", func(t *testing.T) {
		srv := authtest.New(t, authtest.Options{NoRevocation: true})
		m := newManager(t)
		login(t, m, endpoint(srv))
		res, err := m.Logout(context.Background(), "notes")
		if err != nil {
			t.Fatal(err)
		}
		if res.Removed != 1 || res.Revoked != 0 || res.NotRevocable != 1 || len(res.Warnings) != 0 {
			t.Errorf("logout = %+v", res)
		}
		if n := len(srv.Stats().Revocations); n != 0 {
			t.Errorf("%d revocation requests to a server that offers none", n)
		}
	})

	t.Run("failing", func(t *testing.T) {
		srv := authtest.New(t, authtest.Options{FailRevocation: true})
		m := newManager(t)
		login(t, m, endpoint(srv))
		res, err := m.Logout(context.Background(), "notes")
		if err != nil {
			t.Fatal(err)
		}
		// Forgotten here all the same, with one warning per token.
		if res.Removed != 1 || res.Revoked != 0 || len(res.Warnings) != 2 {
			t.Fatalf("logout = %+v", res)
		}
		for _, w := range res.Warnings {
			if !strings.Contains(w, "503 Service Unavailable") && !strings.Contains(w, "temporarily_unavailable") {
				t.Errorf("warning %q does not say why", w)
			}
			if strings.Contains(w, authtest.Marker) {
				t.Errorf("warning %q holds a secret", w)
			}
		}
		if !strings.Contains(res.Warnings[0], "refresh token") || !strings.Contains(res.Warnings[1], "access token") {
			t.Errorf("warnings = %q, want the refresh token first", res.Warnings)
		}
		if left, _ := m.Store.Records("notes"); len(left) != 0 {
			t.Errorf("%d records left after logout", len(left))
		}
	})

	t.Run("nothing stored", func(t *testing.T) {
		res, err := newManager(t).Logout(context.Background(), "notes")
		if err != nil || res.Removed != 0 || res.Revoked != 0 {
			t.Errorf("logout = %+v, %v", res, err)
		}
	})
}

func TestRoundTripper_RefreshSendsResource(t *testing.T) {
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	ep := endpoint(srv)
	login(t, m, ep)
	srv.RevokeAccessTokens()
	if _, err := call(t, m, ep, "whoami"); err != nil {
		t.Fatalf("call after revocation: %v", err)
	}
	if st := srv.Stats(); st.Refreshes != 1 || st.RefreshResource != srv.MCPURL {
		t.Errorf("refreshes = %d with resource %q, want 1 with %q", st.Refreshes, st.RefreshResource, srv.MCPURL)
	}
}

func TestWithFormParams(t *testing.T) {
	var got []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if err := r.ParseForm(); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.PostForm.Encode())
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})
	c := withFormParams(&http.Client{Transport: rt}, map[string][]string{"resource": {"https://x.example/mcp"}})
	post := func(body string) {
		req, _ := http.NewRequest(http.MethodPost, "https://as.example/token", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if _, err := c.Do(req); err != nil {
			t.Fatal(err)
		}
	}
	post("grant_type=refresh_token&refresh_token=r1")
	post("grant_type=refresh_token&resource=https%3A%2F%2Fother.example")
	want := []string{
		"grant_type=refresh_token&refresh_token=r1&resource=https%3A%2F%2Fx.example%2Fmcp",
		"grant_type=refresh_token&resource=https%3A%2F%2Fother.example", // kept as it was
	}
	if !slices.Equal(got, want) {
		t.Errorf("bodies = %q, want %q", got, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
