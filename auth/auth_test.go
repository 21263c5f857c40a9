package auth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/auth/authtest"
	"github.com/mcpsh/mcp/manifests"
)

func newManager(t *testing.T) *Manager {
	t.Helper()
	return &Manager{Store: NewStore(t.TempDir()), ClientName: "mcp-test"}
}

func endpoint(srv *authtest.Server) manifests.Endpoint {
	return manifests.Endpoint{ID: "notes", URL: srv.MCPURL, Type: "http"}
}

func login(t *testing.T, m *Manager, ep manifests.Endpoint) *Record {
	t.Helper()
	rec, err := m.Login(context.Background(), ep, LoginOptions{Follow: true, Wait: 10 * time.Second})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	return rec
}

// call connects with an mcp-go client through the manager's round tripper
// and calls a tool.
func call(t *testing.T, m *Manager, ep manifests.Endpoint, tool string) (string, error) {
	t.Helper()
	hc := &http.Client{Transport: m.RoundTripper(ep, http.DefaultTransport, nil)}
	tr, err := mcptransport.NewStreamableHTTP(ep.URL, mcptransport.WithHTTPBasicClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return "", err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return "", err
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var out []string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

func TestManager_Login(t *testing.T) {
	srv := authtest.New(t, authtest.Options{ScopesSupported: []string{"notes:read"}})
	m := newManager(t)
	ep := endpoint(srv)
	rec := login(t, m, ep)
	st := srv.Stats()
	if st.Registrations != 1 || st.Authorizations != 1 || st.CodeExchanges != 1 {
		t.Errorf("stats after login = %+v", st)
	}
	if st.LastResource != srv.MCPURL {
		t.Errorf("resource = %q, want %q", st.LastResource, srv.MCPURL)
	}
	if st.LastScope != "notes:read offline_access" {
		t.Errorf("scope = %q, want the metadata's scopes and offline_access", st.LastScope)
	}
	if rec.Client.Source != ClientRegistered || rec.Client.AuthMethod != "none" || rec.Issuer != srv.Issuer {
		t.Errorf("record = %+v", rec)
	}
	got, err := call(t, m, ep, "whoami")
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if !strings.Contains(got, "client "+rec.Client.ID) {
		t.Errorf("whoami = %q", got)
	}

	// A second login reuses the registered client.
	login(t, m, ep)
	if st := srv.Stats(); st.Registrations != 1 || st.Authorizations != 2 {
		t.Errorf("stats after second login = %+v", st)
	}
}

func TestManager_LoginInteractive(t *testing.T) {
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	var prompt strings.Builder
	opened := make(chan string, 1)
	// The "person" opens the URL in a "browser", which follows redirects.
	browser := func(u string) error {
		opened <- u
		go func() {
			if resp, err := http.Get(u); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return nil
	}
	if _, err := m.Login(context.Background(), endpoint(srv), LoginOptions{Browser: browser, Prompt: &prompt, Wait: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	u := <-opened
	if !strings.Contains(prompt.String(), u) {
		t.Errorf("the prompt does not show the authorization URL:\n%s", prompt.String())
	}
	for _, p := range []string{"code_challenge_method=S256", "code_challenge=", "resource=", "state=", "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
		if !strings.Contains(u, p) {
			t.Errorf("authorization URL lacks %s: %s", p, u)
		}
	}
}

func TestManager_LoginTimesOut(t *testing.T) {
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	_, err := m.Login(context.Background(), endpoint(srv), LoginOptions{Wait: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no redirect came back") {
		t.Errorf("err = %v", err)
	}
}

func TestRoundTripper_RefreshOn401(t *testing.T) {
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	ep := endpoint(srv)
	before := login(t, m, ep)
	srv.RevokeAccessTokens()
	if _, err := call(t, m, ep, "whoami"); err != nil {
		t.Fatalf("call after revocation: %v", err)
	}
	if st := srv.Stats(); st.Refreshes != 1 {
		t.Errorf("refreshes = %d, want 1", st.Refreshes)
	}
	after, _ := m.Store.Get(ep.ID, ep.URL)
	if after.Token.AccessToken == before.Token.AccessToken || after.Token.RefreshToken == before.Token.RefreshToken {
		t.Error("the refreshed token was not stored")
	}
}

func TestRoundTripper_RefreshBeforeExpiry(t *testing.T) {
	// Tokens live less than the refresh margin: each use refreshes first,
	// and the server never sees an expired token.
	srv := authtest.New(t, authtest.Options{TokenLifetime: 30 * time.Second})
	m := newManager(t)
	ep := endpoint(srv)
	login(t, m, ep)
	if _, err := call(t, m, ep, "whoami"); err != nil {
		t.Fatal(err)
	}
	if st := srv.Stats(); st.Refreshes < 1 {
		t.Errorf("refreshes = %d, want at least 1", st.Refreshes)
	}
}

func TestRoundTripper_LoginRequired(t *testing.T) {
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	ep := endpoint(srv)

	_, err := call(t, m, ep, "whoami")
	var lr *LoginRequiredError
	if !errors.As(err, &lr) || lr.Server != "notes" || lr.Reason != "no stored login" {
		t.Fatalf("err = %v, want a LoginRequiredError for notes", err)
	}
	if lr.Command() != "mcp auth login notes" {
		t.Errorf("command = %q", lr.Command())
	}

	// A refresh the server refuses ends the login, and says so.
	login(t, m, ep)
	srv.RevokeAccessTokens()
	srv.RevokeRefreshTokens()
	_, err = call(t, m, ep, "whoami")
	if !errors.As(err, &lr) || !strings.Contains(lr.Reason, "refused to refresh") {
		t.Fatalf("err = %v, want a LoginRequiredError", err)
	}
	for _, s := range srv.Secrets() {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error holds a secret: %v", err)
		}
	}
	rec, _ := m.Store.Get(ep.ID, ep.URL)
	if st := rec.Status(time.Now()); st.State != StateLoggedOut || rec.Client.ID == "" {
		t.Errorf("after a refused refresh: state %q, client %q; want the token gone and the client kept", st.State, rec.Client.ID)
	}
}

func TestRoundTripper_StepUp(t *testing.T) {
	opts := authtest.Options{ScopesSupported: []string{"notes:read"}, WriteScope: "notes:write"}

	t.Run("needs a person", func(t *testing.T) {
		srv := authtest.New(t, opts)
		m := newManager(t)
		ep := endpoint(srv)
		login(t, m, ep)
		_, err := call(t, m, ep, "write")
		var lr *LoginRequiredError
		if !errors.As(err, &lr) || !slices.Contains(lr.Scopes, "notes:write") {
			t.Fatalf("err = %v, want a LoginRequiredError asking for notes:write", err)
		}
		// The next login asks for the wider scope.
		login(t, m, ep)
		if st := srv.Stats(); !strings.Contains(st.LastScope, "notes:write") || !strings.Contains(st.LastScope, "notes:read") {
			t.Errorf("second login asked for %q", st.LastScope)
		}
		if _, err := call(t, m, ep, "write"); err != nil {
			t.Errorf("call after the wider login: %v", err)
		}
	})

	t.Run("auto follow", func(t *testing.T) {
		srv := authtest.New(t, opts)
		m := newManager(t)
		m.AutoFollow = true
		ep := endpoint(srv)
		login(t, m, ep)
		got, err := call(t, m, ep, "write")
		if err != nil || !strings.Contains(got, "wrote") {
			t.Fatalf("call = %q, %v", got, err)
		}
		if st := srv.Stats(); st.Authorizations != 2 || !strings.Contains(st.LastScope, "notes:write") {
			t.Errorf("stats = %+v, want a second authorization with notes:write", st)
		}
	})
}

func TestManager_LoginConfiguredClient(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			secret := authtest.Marker + "-configured-secret"
			srv := authtest.New(t, authtest.Options{NoRegistration: true, Clients: map[string]string{"pre": secret},
				AuthMethods: []string{method}})
			m := newManager(t)
			ep := endpoint(srv)
			ep.OAuth = &manifests.OAuth{ClientID: "pre", ClientSecret: secret}
			if method == "client_secret_post" {
				// The server registered "pre" for basic: post must be refused,
				// and the refusal must not echo the secret.
				_, err := m.Login(context.Background(), ep, LoginOptions{Follow: true})
				if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "invalid_client") {
					t.Fatalf("err = %v, want invalid_client without the secret", err)
				}
				return
			}
			rec := login(t, m, ep)
			if rec.Client.Source != ClientConfigured || rec.Client.AuthMethod != method || srv.Stats().Registrations != 0 {
				t.Errorf("record client = %+v", rec.Client)
			}
		})
	}

	t.Run("no client", func(t *testing.T) {
		srv := authtest.New(t, authtest.Options{NoRegistration: true})
		_, err := newManager(t).Login(context.Background(), endpoint(srv), LoginOptions{Follow: true})
		var nc *NoClientError
		if !errors.As(err, &nc) {
			t.Errorf("err = %v, want NoClientError", err)
		}
	})
}

func TestManager_LoginMetadataDocument(t *testing.T) {
	const doc = "https://app.example/mcp-client.json"
	srv := authtest.New(t, authtest.Options{CIMD: true})
	m := newManager(t)
	ep := endpoint(srv)
	ep.OAuth = &manifests.OAuth{ClientID: doc}
	rec := login(t, m, ep)
	if rec.Client.Source != ClientMetadataDocument || srv.Stats().LastClientID != doc || srv.Stats().Registrations != 0 {
		t.Errorf("client = %+v, stats = %+v", rec.Client, srv.Stats())
	}

	// A server that does not take documents gets a registration instead.
	srv2 := authtest.New(t, authtest.Options{})
	ep2 := endpoint(srv2)
	ep2.OAuth = &manifests.OAuth{ClientID: doc}
	if rec := login(t, m, ep2); rec.Client.Source != ClientRegistered {
		t.Errorf("client = %+v, want a registered one", rec.Client)
	}
}

func TestManager_LoginRefusals(t *testing.T) {
	m := newManager(t)
	for _, tc := range []struct {
		name string
		ep   manifests.Endpoint
		want string
	}{
		{"stdio", manifests.Endpoint{ID: "s", Command: "srv"}, "takes its credentials from env"},
		{"static header", manifests.Endpoint{ID: "s", URL: "https://x.example/mcp", Headers: map[string]string{"authorization": "Bearer x"}}, "sets its own Authorization header"},
		{"plain http", manifests.Endpoint{ID: "s", URL: "http://x.example/mcp"}, "neither https nor on this machine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Login(context.Background(), tc.ep, LoginOptions{Follow: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestManager_RoundTripperLeavesOthersAlone(t *testing.T) {
	m := newManager(t)
	base := http.DefaultTransport
	for _, ep := range []manifests.Endpoint{
		{ID: "s", Command: "srv"},
		{ID: "s", URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	} {
		if rt := m.RoundTripper(ep, base, nil); rt != base {
			t.Errorf("RoundTripper(%+v) wrapped the transport", ep)
		}
	}
	var nilManager *Manager
	if rt := nilManager.RoundTripper(manifests.Endpoint{URL: "https://x.example"}, base, nil); rt != base {
		t.Error("a nil manager wrapped the transport")
	}
}

func TestManager_LoginPaste(t *testing.T) {
	// The browser runs elsewhere: the person pastes the address it was
	// redirected to, which never reaches the loopback listener.
	srv := authtest.New(t, authtest.Options{})
	m := newManager(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	browser := func(u string) error {
		go func() {
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Get(u)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			resp.Body.Close()
			io.WriteString(pw, "not a URL\n"+resp.Header.Get("Location")+"\n")
		}()
		return nil
	}
	rec, err := m.Login(context.Background(), endpoint(srv), LoginOptions{Browser: browser, Paste: pr, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !hasToken(rec) {
		t.Errorf("no token after a pasted redirect")
	}
}

// An endpoint from a directory the user has not trusted is refused before
// anything is sent to its URL.
func TestManager_LoginRefusesUntrusted(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	ep := manifests.Endpoint{ID: "notes", URL: srv.URL + "/mcp", Type: "http",
		Untrusted: &manifests.UntrustedError{Server: "notes", Dir: "/x/recipe"}}
	_, err := newManager(t).Login(context.Background(), ep, LoginOptions{Follow: true, Wait: time.Second})
	var u *manifests.UntrustedError
	if !errors.As(err, &u) {
		t.Errorf("err = %v, want *manifests.UntrustedError", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the untrusted endpoint's URL", n)
	}
}

// A server that answers initialize without a login, or refuses it (the
// 2026-07-28 revision), asks for a login with its scope from the next
// request: the login asks for that scope rather than every scope the
// metadata lists.
func TestManager_LoginScopeOfFirstChallenge(t *testing.T) {
	for name, opts := range map[string]authtest.Options{
		"initialize open":    {OpenInitialize: true},
		"initialize refused": {RefuseInitialize: true},
	} {
		t.Run(name, func(t *testing.T) {
			opts.ScopesSupported, opts.ChallengeScope = []string{"notes:profile"}, "notes:read"
			srv := authtest.New(t, opts)
			m := newManager(t)
			login(t, m, endpoint(srv))
			if st := srv.Stats(); st.LastScope != "notes:read offline_access" {
				t.Errorf("scope = %q, want the challenge's notes:read (and offline_access)", st.LastScope)
			}
		})
	}
}

// A server that moves to another authorization server (SEP-2352): the
// stored login is not refreshed with the old one, and the next login
// registers a client with the new one rather than reusing the old
// client.
func TestRoundTripper_AuthorizationServerMoves(t *testing.T) {
	for _, auto := range []bool{false, true} {
		t.Run(map[bool]string{false: "needs a person", true: "auto follow"}[auto], func(t *testing.T) {
			srv, next := authtest.New(t, authtest.Options{}), authtest.New(t, authtest.Options{})
			m := newManager(t)
			m.AutoFollow = auto
			ep := endpoint(srv)
			old := login(t, m, ep)
			if _, err := call(t, m, ep, "whoami"); err != nil {
				t.Fatalf("call before the move: %v", err)
			}
			srv.MoveTo(next)
			got, err := call(t, m, ep, "whoami")
			if !auto {
				var lr *LoginRequiredError
				if !errors.As(err, &lr) || !strings.Contains(lr.Reason, next.Issuer) {
					t.Fatalf("err = %v, want a LoginRequiredError naming %s", err, next.Issuer)
				}
				login(t, m, ep)
				got, err = call(t, m, ep, "whoami")
			}
			if err != nil {
				t.Fatalf("call after the move: %v", err)
			}
			if st := srv.Stats(); st.Refreshes != 0 {
				t.Errorf("the old authorization server was asked for %d refreshes", st.Refreshes)
			}
			// Both servers number their clients alike: what shows the old
			// client is not reused is the new registration.
			st := next.Stats()
			if st.Registrations != 1 || !strings.Contains(got, "client "+st.LastClientID) {
				t.Errorf("new authorization server: %+v; whoami = %q", st, got)
			}
			if old.Client.Issuer != srv.Issuer {
				t.Errorf("the first login's client belongs to %q, want %s", old.Client.Issuer, srv.Issuer)
			}
			rec, _ := m.Store.Get(ep.ID, ep.URL)
			if rec == nil || rec.Issuer != next.Issuer || rec.Client.Issuer != next.Issuer {
				t.Errorf("stored record = %+v, want one of %s", rec, next.Issuer)
			}
		})
	}
}

// A configured client was used with one authorization server; when the
// server moves to another, the client and its secret are not presented
// there: the login says what to do instead.
func TestManager_LoginMovedConfiguredClient(t *testing.T) {
	secret := authtest.Marker + "-configured-secret"
	clients := map[string]string{"pre": secret}
	srv := authtest.New(t, authtest.Options{NoRegistration: true, Clients: clients})
	next := authtest.New(t, authtest.Options{NoRegistration: true, Clients: clients})
	m := newManager(t)
	ep := endpoint(srv)
	ep.OAuth = &manifests.OAuth{ClientID: "pre", ClientSecret: secret}
	login(t, m, ep)
	srv.MoveTo(next)
	_, err := m.Login(context.Background(), ep, LoginOptions{Follow: true, Wait: 10 * time.Second})
	var mc *MovedClientError
	if !errors.As(err, &mc) || !strings.Contains(err.Error(), next.Issuer) || strings.Contains(err.Error(), secret) {
		t.Fatalf("err = %v, want a MovedClientError naming %s", err, next.Issuer)
	}
	if st := next.Stats(); st.Authorizations != 0 || st.CodeExchanges != 0 {
		t.Errorf("the new authorization server saw the configured client: %+v", st)
	}
	// Once the old login is forgotten, the person's choice stands.
	if _, err := m.Store.Delete(ep.ID); err != nil {
		t.Fatal(err)
	}
	login(t, m, ep)
}
