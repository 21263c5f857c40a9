// Package authtest runs an OAuth 2.1 authorization server that approves
// every request by itself, in front of an MCP server (mark3labs/mcp-go,
// streamable HTTP) that demands its bearer tokens: what tests of logins,
// refreshes and scope step-ups need.
//
// Every secret it issues (client secrets, codes, access and refresh
// tokens) holds Marker, so that a test can look for leaks.
package authtest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Marker is part of every secret the server issues.
const Marker = "SeCrEt"

// Options shape the servers. The zero value is a server that registers
// clients dynamically and needs no scope.
type Options struct {
	// ScopesSupported are listed in the protected resource metadata.
	ScopesSupported []string
	// WriteScope, when set, is needed to call the tool "write": without it
	// the MCP server answers 403 insufficient_scope.
	WriteScope string
	// TokenLifetime of access tokens (0 means an hour).
	TokenLifetime time.Duration
	// AuthMethods are the token endpoint authentication methods offered
	// (nil means none, client_secret_basic and client_secret_post).
	AuthMethods []string
	// NoRegistration turns dynamic client registration off.
	NoRegistration bool
	// Clients are registered beforehand: client id to secret ("" for a
	// public client).
	Clients map[string]string
	// ClientsAuthMethod is how Clients with a secret authenticate
	// (client_secret_basic when empty).
	ClientsAuthMethod string
	// CIMD makes the server take client id metadata document URLs.
	CIMD bool
	// NoRevocation leaves the revocation endpoint (RFC 7009) out of the
	// metadata; FailRevocation makes it answer 503.
	NoRevocation, FailRevocation bool
	// Echo makes the servers repeat what they were sent, as careless
	// servers do: the MCP server's tool "echo_auth" fails with a JSON-RPC
	// error, and its tool "ask_auth" asks for input with a message, that
	// quote the request's Authorization header (and so does tools/list's
	// error after FailLists); the token endpoint's refusals quote the
	// request's Authorization header and form. Secrets it issues then end
	// in "+/=", which a form or a URL escapes.
	Echo bool
	// OpenInitialize lets initialize and notifications through without a
	// token, as some servers do: the first request that needs a login is
	// the next one.
	OpenInitialize bool
	// RefuseInitialize answers initialize with 400, as a server of the
	// 2026-07-28 revision only does.
	RefuseInitialize bool
	// ChallengeScope is the scope the 401 challenge asks for (none when
	// empty).
	ChallengeScope string
}

// Stats count what the authorization server was asked.
type Stats struct {
	Registrations, Authorizations, CodeExchanges, Refreshes int
	// LastScope is the scope parameter of the last authorization request.
	LastScope string
	// LastResource is the resource parameter of the last token request.
	LastResource string
	// LastClientID is the client id of the last authorization request.
	LastClientID string
	// RefreshResource is the resource parameter of the last refresh.
	RefreshResource string
	// Revocations are the revocation requests, in order.
	Revocations []Revocation
}

// Revocation is one revocation request.
type Revocation struct {
	// Hint is its token_type_hint.
	Hint string
	// Revoked is what the token was: "access_token", "refresh_token", or
	// "unknown" for a token the server did not know (revoked already, or
	// never issued).
	Revoked string
}

// Server is the pair of servers.
type Server struct {
	// MCPURL is the protected MCP endpoint; Issuer is the authorization server.
	MCPURL, Issuer string

	opts Options
	mcp  *httptest.Server
	as   *httptest.Server

	mu      sync.Mutex
	n       int
	clients map[string]*client
	codes   map[string]*grant
	access  map[string]*grant
	refresh map[string]*grant
	secrets []string
	stats   Stats

	failLists, failRefresh bool
	moved                  *Server  // see MoveTo
	adopted                []string // MCP endpoints moved here
}

type client struct {
	id, secret, method string
	redirects          []string
}

type grant struct {
	client, redirect, challenge, resource string
	scopes                                []string
	expires                               time.Time
}

// New starts the servers; they stop when the test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s := Start(opts)
	t.Cleanup(s.Close)
	return s
}

// Start starts the servers; Close stops them.
func Start(opts Options) *Server {
	if opts.TokenLifetime == 0 {
		opts.TokenLifetime = time.Hour
	}
	if opts.AuthMethods == nil {
		opts.AuthMethods = []string{"none", "client_secret_basic", "client_secret_post"}
	}
	s := &Server{opts: opts, clients: map[string]*client{}, codes: map[string]*grant{},
		access: map[string]*grant{}, refresh: map[string]*grant{}}
	for id, secret := range opts.Clients {
		method := cmp.Or(opts.ClientsAuthMethod, "client_secret_basic")
		if secret == "" {
			method = "none"
		}
		s.clients[id] = &client{id: id, secret: secret, method: method}
	}
	// Every field is set before the first request can arrive.
	s.as, s.mcp = httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)
	s.Issuer = "http://" + s.as.Listener.Addr().String()
	s.MCPURL = "http://" + s.mcp.Listener.Addr().String() + "/mcp"
	s.as.Config.Handler, s.mcp.Config.Handler = s.asHandler(), s.mcpHandler()
	s.as.Start()
	s.mcp.Start()
	return s
}

// Close stops the servers.
func (s *Server) Close() {
	s.mcp.CloseClientConnections()
	s.mcp.Close()
	s.as.Close()
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Revocations = slices.Clone(st.Revocations)
	return st
}

// Secrets returns every secret issued so far.
func (s *Server) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.secrets)
}

// RevokeAccessTokens forgets every access token, as a server that rotated
// its keys: the next request gets 401, and refresh tokens still work.
func (s *Server) RevokeAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

// RevokeRefreshTokens forgets every refresh token.
func (s *Server) RevokeRefreshTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.refresh)
}

// issue returns a new secret of kind; s.mu is held.
func (s *Server) issue(kind string) string {
	s.n++
	v := fmt.Sprintf("%s-%s-%d-%x", Marker, kind, s.n, time.Now().UnixNano())
	if s.opts.Echo {
		v += "+/="
	}
	s.secrets = append(s.secrets, v)
	return v
}

func (s *Server) mcpHandler() http.Handler {
	srv := server.NewMCPServer("authtest", "1.0.0", server.WithToolCapabilities(true))
	srv.AddTool(mcp.NewTool("whoami", mcp.WithDescription("Say which client and scopes the token carries")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			g, _ := ctx.Value(grantKey{}).(*grant)
			if g == nil {
				return mcp.NewToolResultError("no grant"), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("client %s, scopes [%s]", g.client, strings.Join(g.scopes, " "))), nil
		})
	srv.AddTool(mcp.NewTool("write", mcp.WithDescription("Needs the write scope"), mcp.WithString("text")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("wrote " + req.GetString("text", "")), nil
		})
	if s.opts.Echo {
		addEchoTools(srv)
	}
	// Asking for input in the middle of a call needs a session.
	h := server.NewStreamableHTTPServer(srv, server.WithStateLess(!s.opts.Echo))
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"resource": s.MCPURL, "authorization_servers": []string{s.issuer()},
			"scopes_supported": s.opts.ScopesSupported,
		})
	})
	mux.Handle("/mcp", s.protect(h))
	return mux
}

type grantKey struct{}

// protect demands a valid bearer token for the resource, and the write
// scope for calls of "write".
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prm := strings.TrimSuffix(s.MCPURL, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
		challenge := `Bearer resource_metadata="` + prm + `"`
		if s.opts.ChallengeScope != "" {
			challenge += `, scope="` + s.opts.ChallengeScope + `"`
		}
		if s.opts.RefuseInitialize && isInitialize(r) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported protocol version"})
			return
		}
		if s.opts.OpenInitialize && opensSession(r) {
			next.ServeHTTP(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		g := s.grant(tok)
		if !ok || g == nil || time.Now().After(g.expires) || g.resource != s.MCPURL {
			if ok {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return
		}
		if s.opts.WriteScope != "" && r.Method == http.MethodPost && !slices.Contains(g.scopes, s.opts.WriteScope) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && msg.Params.Name == "write" {
				need := append(slices.Clone(g.scopes), s.opts.WriteScope)
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, strings.Join(need, " "), prm))
				writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
				return
			}
		}
		if s.echoListError(w, r) {
			return
		}
		ctx := context.WithValue(r.Context(), grantKey{}, g)
		ctx = context.WithValue(ctx, authorizationKey{}, r.Header.Get("Authorization"))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// opensSession says r is an initialize request or a notification.
func opensSession(r *http.Request) bool {
	m := rpcMethod(r)
	return m == "initialize" || strings.HasPrefix(m, "notifications/")
}

func isInitialize(r *http.Request) bool { return rpcMethod(r) == "initialize" }

// rpcMethod is the method of the JSON-RPC message r posts ("" if none).
func rpcMethod(r *http.Request) string {
	if r.Method != http.MethodPost {
		return ""
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	return msg.Method
}

func (s *Server) asHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		md := map[string]any{
			"issuer":                                         s.Issuer,
			"authorization_endpoint":                         s.Issuer + "/authorize",
			"token_endpoint":                                 s.Issuer + "/token",
			"response_types_supported":                       []string{"code"},
			"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":               []string{"S256"},
			"token_endpoint_auth_methods_supported":          s.opts.AuthMethods,
			"scopes_supported":                               append(slices.Clone(s.opts.ScopesSupported), "offline_access"),
			"authorization_response_iss_parameter_supported": true,
		}
		if !s.opts.NoRegistration {
			md["registration_endpoint"] = s.Issuer + "/register"
		}
		if s.opts.CIMD {
			md["client_id_metadata_document_supported"] = true
		}
		if !s.opts.NoRevocation {
			md["revocation_endpoint"] = s.Issuer + "/revoke"
		}
		writeJSON(w, http.StatusOK, md)
	})
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /revoke", s.revoke)
	return mux
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
	}
	if s.opts.NoRegistration || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	if req.Method == "" {
		req.Method = "client_secret_basic"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Registrations++
	s.n++
	c := &client{id: fmt.Sprintf("client-%d", s.n), method: req.Method, redirects: req.RedirectURIs}
	out := map[string]any{"client_id": c.id, "redirect_uris": c.redirects, "token_endpoint_auth_method": c.method}
	if c.method != "none" {
		c.secret = s.issue("client-secret")
		out["client_secret"] = c.secret
	}
	s.clients[c.id] = c
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Authorizations++
	s.stats.LastScope, s.stats.LastClientID = q.Get("scope"), q.Get("client_id")
	c := s.clients[q.Get("client_id")]
	if c == nil && s.opts.CIMD && strings.HasPrefix(q.Get("client_id"), "https://") {
		c = &client{id: q.Get("client_id"), method: "none"}
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case c == nil:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case err != nil || redirect.Scheme != "http" || redirect.Hostname() != "127.0.0.1":
		http.Error(w, "the redirect URI is not a loopback URI", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE with S256 is required", http.StatusBadRequest)
		return
	}
	// Loopback redirect URIs match whatever their port (RFC 8252 §7.3).
	if len(c.redirects) > 0 && !slices.ContainsFunc(c.redirects, func(reg string) bool {
		u, err := url.Parse(reg)
		return err == nil && u.Hostname() == redirect.Hostname() && u.Path == redirect.Path
	}) {
		http.Error(w, "the redirect URI is not registered", http.StatusBadRequest)
		return
	}
	back := *redirect
	v := back.Query()
	if !s.servesLocked(q.Get("resource")) {
		v.Set("error", "invalid_target")
	} else {
		code := s.issue("code")
		s.codes[code] = &grant{client: c.id, redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
		v.Set("code", code)
	}
	v.Set("state", q.Get("state"))
	v.Set("iss", s.Issuer)
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.authenticate(w, r, raw)
	if c == nil {
		return
	}
	var g *grant
	switch f.Get("grant_type") {
	case "authorization_code":
		code := f.Get("code")
		g = s.codes[code]
		delete(s.codes, code)
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case g == nil || g.client != c.id || g.redirect != f.Get("redirect_uri"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "code " + code + " is not valid"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		case f.Get("resource") != g.resource:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target"})
			return
		}
		s.stats.CodeExchanges++
		s.stats.LastResource = f.Get("resource")
	case "refresh_token":
		if s.failRefresh {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable",
				"error_description": "the token service is down" + s.echo(r, raw)})
			return
		}
		rt := f.Get("refresh_token")
		g = s.refresh[rt]
		delete(s.refresh, rt)
		if g == nil || g.client != c.id {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "refresh token " + rt + " is not valid"})
			return
		}
		if res := f.Get("resource"); res != "" && res != g.resource {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target"})
			return
		}
		s.stats.Refreshes++
		s.stats.RefreshResource = f.Get("resource")
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := s.issue("access-token"), s.issue("refresh-token")
	ng := *g
	ng.expires = time.Now().Add(s.opts.TokenLifetime)
	s.access[at], s.refresh[rt] = &ng, &ng
	out := map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt,
		"expires_in": int(s.opts.TokenLifetime.Seconds())}
	if len(ng.scopes) > 0 {
		out["scope"] = strings.Join(ng.scopes, " ")
	}
	writeJSON(w, http.StatusOK, out)
}

// authenticate returns the client a token or revocation request
// authenticates as, with the method it registered; otherwise it answers
// 401 and returns nil. s.mu is held, r's form parsed and raw its body.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, raw []byte) *client {
	f := r.PostForm
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	c := s.clients[id]
	if c == nil && s.opts.CIMD && strings.HasPrefix(id, "https://") {
		c = &client{id: id, method: "none"}
	}
	method := map[bool]string{true: "client_secret_basic", false: "client_secret_post"}[basic]
	if secret == "" && !basic {
		method = "none"
	}
	if c == nil || c.method != method || c.secret != secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client",
			"error_description": "client authentication failed for secret " + secret + s.echo(r, raw)})
		return nil
	}
	return c
}

// revoke is the revocation endpoint (RFC 7009). Revoking a refresh token
// also revokes the access tokens of its grant.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.FailRevocation {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable",
			"error_description": "cannot revoke " + r.PostForm.Get("token") + " now"})
		return
	}
	c := s.authenticate(w, r, raw)
	if c == nil {
		return
	}
	tok := r.PostForm.Get("token")
	kind := "unknown"
	if g := s.refresh[tok]; g != nil && g.client == c.id {
		kind = "refresh_token"
		delete(s.refresh, tok)
		for at, ag := range s.access {
			if ag == g {
				delete(s.access, at)
			}
		}
	} else if g := s.access[tok]; g != nil && g.client == c.id {
		kind = "access_token"
		delete(s.access, tok)
	}
	s.stats.Revocations = append(s.stats.Revocations, Revocation{Hint: r.PostForm.Get("token_type_hint"), Revoked: kind})
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
