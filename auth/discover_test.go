package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpsh/mcp/manifests"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []challenge
	}{
		{`Bearer`, []challenge{{"Bearer", map[string]string{}}}},
		{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="a b"`,
			[]challenge{{"Bearer", map[string]string{"resource_metadata": "https://a.example/.well-known/oauth-protected-resource", "scope": "a b"}}}},
		{`Bearer error="insufficient_scope", scope="x, y", error_description="say \"more\""`,
			[]challenge{{"Bearer", map[string]string{"error": "insufficient_scope", "scope": "x, y", "error_description": `say "more"`}}}},
		{`Basic realm="x", Bearer Scope=read`,
			[]challenge{{"Basic", map[string]string{"realm": "x"}}, {"Bearer", map[string]string{"scope": "read"}}}},
		{`DPoP algs="ES256", Bearer realm="r"`,
			[]challenge{{"DPoP", map[string]string{"algs": "ES256"}}, {"Bearer", map[string]string{"realm": "r"}}}},
		{`Negotiate abc123==`, []challenge{{"Negotiate", map[string]string{"abc123": "="}}}},
		{``, nil},
	} {
		if got := parseChallenges(tc.in); !cmp.Equal(got, tc.want, cmp.AllowUnexported(challenge{})) {
			t.Errorf("parseChallenges(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func FuzzParseChallenges(f *testing.F) {
	f.Add(`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/y"`)
	f.Add(`Basic realm="a\"b", Bearer`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range parseChallenges(s) {
			if c.scheme == "" || c.params == nil {
				t.Fatalf("bad challenge %#v from %q", c, s)
			}
		}
	})
}

// site serves JSON documents by path and records what was asked for.
type site struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]func(base string) any
	hits []string
	// challenge is the WWW-Authenticate of 401s to /mcp; "" means 200.
	challenge func(base string) string
}

func newSite(t *testing.T) *site {
	s := &site{docs: map[string]func(string) any{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.Method+" "+r.URL.Path)
		doc, ch := s.docs[r.URL.Path], s.challenge
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/mcp" && ch != nil:
			w.Header().Set("WWW-Authenticate", ch(s.URL))
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/mcp":
			w.WriteHeader(http.StatusOK)
		case doc != nil:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(doc(s.URL))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits)
}

func asDoc(prefix string, extra map[string]any) func(string) any {
	return func(base string) any {
		d := map[string]any{"issuer": base + prefix, "authorization_endpoint": base + prefix + "/authorize",
			"token_endpoint": base + prefix + "/token", "code_challenge_methods_supported": []string{"S256"}}
		for k, v := range extra {
			d[k] = v
		}
		return d
	}
}

func TestManager_Discover(t *testing.T) {
	ctx := context.Background()
	bearer := func(string) string { return `Bearer error="invalid_token"` }

	t.Run("root metadata and a path issuer", func(t *testing.T) {
		s := newSite(t)
		s.challenge = bearer
		s.docs["/.well-known/oauth-protected-resource"] = func(b string) any {
			return map[string]any{"resource": b, "authorization_servers": []string{b + "/tenant1"}}
		}
		s.docs["/.well-known/oauth-authorization-server/tenant1"] = asDoc("/tenant1", nil)
		d := discoverAt(t, s, bearer)
		if d.resource != s.URL || d.as.Issuer != s.URL+"/tenant1" || d.legacy {
			t.Errorf("discovery = %+v", d)
		}
		hits := strings.Join(s.requested(), "\n")
		if !strings.Contains(hits, "GET /.well-known/oauth-protected-resource/mcp\nGET /.well-known/oauth-protected-resource\n") {
			t.Errorf("path-based metadata was not tried first:\n%s", hits)
		}
		if strings.Contains(hits, "GET /.well-known/oauth-authorization-server\n") {
			t.Errorf("root authorization server metadata asked for a path issuer:\n%s", hits)
		}
	})

	t.Run("metadata URL from the challenge and OpenID at the issuer path", func(t *testing.T) {
		s := newSite(t)
		ch := func(b string) string { return `Bearer resource_metadata="` + b + `/custom/prm.json", scope="a b"` }
		s.docs["/custom/prm.json"] = func(b string) any {
			return map[string]any{"resource": b + "/mcp", "authorization_servers": []string{b + "/tenant1"}}
		}
		s.docs["/tenant1/.well-known/openid-configuration"] = asDoc("/tenant1", nil)
		d := discoverAt(t, s, ch)
		if d.as == nil || !slices.Equal(d.challenge, []string{"a", "b"}) {
			t.Errorf("discovery = %+v", d)
		}
		if hits := s.requested(); slices.Contains(hits, "GET /.well-known/oauth-protected-resource/mcp") {
			t.Errorf("well-known metadata asked for despite resource_metadata: %q", hits)
		}
	})

	t.Run("2025-03-26 default endpoints", func(t *testing.T) {
		s := newSite(t)
		d := discoverAt(t, s, bearer)
		if !d.legacy || d.as.AuthorizationEndpoint != s.URL+"/authorize" || d.as.RegistrationEndpoint != s.URL+"/register" || d.resource != s.URL+"/mcp" {
			t.Errorf("discovery = %+v", d.as)
		}
	})

	for _, tc := range []struct {
		name string
		prm  func(string) any
		as   func(string) any
		want string
	}{
		{"resource of another origin", func(b string) any {
			return map[string]any{"resource": "https://evil.example/mcp", "authorization_servers": []string{b}}
		}, asDoc("", nil), "not this server"},
		{"resource of another path", func(b string) any {
			return map[string]any{"resource": b + "/other", "authorization_servers": []string{b}}
		}, asDoc("", nil), "not this server"},
		{"no PKCE", func(b string) any {
			return map[string]any{"resource": b + "/mcp", "authorization_servers": []string{b}}
		}, asDoc("", map[string]any{"code_challenge_methods_supported": nil}), "PKCE"},
		{"issuer mismatch", func(b string) any {
			return map[string]any{"resource": b + "/mcp", "authorization_servers": []string{b}}
		}, asDoc("/elsewhere", nil), "names issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t)
			s.docs["/.well-known/oauth-protected-resource/mcp"] = tc.prm
			s.docs["/.well-known/oauth-authorization-server"] = tc.as
			m := newManager(t)
			ep := manifests.Endpoint{ID: "x", URL: s.URL + "/mcp"}
			_, err := m.discover(ctx, ep, 401, &challenge{scheme: "Bearer", params: map[string]string{}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}

	t.Run("no OAuth at all", func(t *testing.T) {
		s := newSite(t)
		m := newManager(t)
		_, err := m.Login(ctx, manifests.Endpoint{ID: "open", URL: s.URL + "/mcp"}, LoginOptions{Follow: true})
		var no *NoOAuthError
		if !errors.As(err, &no) {
			t.Errorf("err = %v, want NoOAuthError", err)
		}
	})
}

func discoverAt(t *testing.T, s *site, ch func(string) string) *discovery {
	t.Helper()
	s.mu.Lock()
	s.challenge = ch
	s.mu.Unlock()
	m := newManager(t)
	ep := manifests.Endpoint{ID: "x", URL: s.URL + "/mcp"}
	status, c, err := m.probe(context.Background(), ep)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.discover(context.Background(), ep, status, c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
