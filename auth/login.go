package auth

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/internal/redirect"
	"github.com/mcpsh/mcp/manifests"
)

// LoginOptions say how a login reaches the person who approves it.
type LoginOptions struct {
	// Browser opens the authorization URL; nil, or an error, leaves it to
	// the person to open the URL written to Prompt.
	Browser func(url string) error
	// Follow fetches the authorization URL with HTTP GETs and follows its
	// redirects back to the loopback listener: for authorization servers
	// that approve without a person.
	Follow bool
	// Prompt receives the authorization URL and progress (nil: discarded).
	Prompt io.Writer
	// Paste, if set, is read for the address the browser was redirected
	// to, pasted by a person whose browser runs on another machine.
	Paste io.Reader
	// Wait bounds the wait for the redirect back (0 means 5 minutes).
	Wait time.Duration
}

// defaultWait is how long a login waits for the browser to come back.
const defaultWait = 5 * time.Minute

// Login logs in to the server ep (an expanded url endpoint) and stores the
// result. It needs a person unless opts.Follow is set and the
// authorization server approves by itself.
//
// Its errors hold none of the login's secrets: the endpoint's, the
// client's secret, the PKCE verifier, the code and the tokens. An endpoint
// from a directory the user has not trusted is refused before anything is
// sent.
func (m *Manager) Login(ctx context.Context, ep manifests.Endpoint, opts LoginOptions) (*Record, error) {
	if err := ep.Refusal(); err != nil {
		return nil, err
	}
	secrets := new(redact.Set)
	ep.AddSecrets(secrets)
	rec, err := m.login(ctx, ep, opts, secrets)
	if err != nil {
		return nil, secrets.Error(err)
	}
	return rec, nil
}

func (m *Manager) login(ctx context.Context, ep manifests.Endpoint, opts LoginOptions, secrets *redact.Set) (*Record, error) {
	if ep.URL == "" {
		return nil, fmt.Errorf("server %s is started from a command: it takes its credentials from env, not from a login", ep.ID)
	}
	if hasAuthorization(ep.Headers) {
		return nil, fmt.Errorf("server %s sets its own Authorization header (headers in its binding): it does not use a login", ep.ID)
	}
	if err := checkSecureURL(ep.URL); err != nil {
		return nil, fmt.Errorf("server %s: %w", ep.ID, err)
	}
	prev, err := m.Store.Get(ep.ID, ep.URL)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		noteSecrets(secrets, prev)
	}
	status, ch, err := m.probe(ctx, ep)
	if err != nil {
		return nil, err
	}
	d, err := m.discover(ctx, ep, status, ch)
	if err != nil {
		return nil, err
	}
	if err := checkMovedClient(ep, d, prev); err != nil {
		return nil, err
	}
	want := ""
	switch {
	case ep.OAuth != nil && ep.OAuth.RedirectURI != "":
		want = ep.OAuth.RedirectURI
	case prev != nil && prev.Client.Source == ClientRegistered:
		want = prev.Client.RedirectURI
	}
	exact := ep.OAuth != nil && ep.OAuth.RedirectURI != ""
	ln, redirect, err := listen(want, exact)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", ep.ID, err)
	}
	defer ln.Close()
	client, err := m.chooseClient(ctx, ep, d, prev, redirect)
	if err != nil {
		return nil, err
	}
	secrets.AddBasic(client.ID, client.Secret)
	rec := &Record{
		Server: ep.ID, URL: ep.URL, Resource: d.resource, Issuer: d.as.Issuer,
		AuthorizationEndpoint: d.as.AuthorizationEndpoint, TokenEndpoint: d.as.TokenEndpoint,
		RevocationEndpoint: d.as.RevocationEndpoint, IssParameter: d.as.AuthorizationResponseIssParameterSupported, Client: client,
	}
	scopes := chooseScopes(ep, d, prev)
	if err := m.authorize(ctx, rec, scopes, ln, opts, secrets); err != nil {
		return nil, err
	}
	// Under the record's lock, so that a connection noting a wider scope
	// for the next login does not write the previous login back over it.
	unlock, err := m.Store.lock(rec.Server, rec.URL)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := m.Store.Put(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// listen opens the loopback listener of the redirect URI: on want's port
// when it is free (or, with exact, must be), else on any free port of
// 127.0.0.1, which RFC 8252 §7.3 obliges authorization servers to accept.
func listen(want string, exact bool) (net.Listener, string, error) {
	path := "/callback"
	if want != "" {
		u, err := url.Parse(want)
		if err == nil && manifests.ValidLoopbackRedirect(want) {
			host := u.Hostname()
			if strings.EqualFold(host, "localhost") {
				host = "127.0.0.1"
			}
			ln, lerr := net.Listen("tcp", net.JoinHostPort(host, u.Port()))
			if lerr == nil {
				return ln, want, nil
			}
			if exact {
				return nil, "", fmt.Errorf("cannot listen for the redirect on %s: %s", u.Host, describe(lerr))
			}
			path = u.EscapedPath()
		} else if exact {
			return nil, "", fmt.Errorf("redirect URI %q is not a loopback URI", want)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("cannot listen for the redirect: %s", describe(err))
	}
	if path == "" {
		path = "/"
	}
	return ln, "http://" + ln.Addr().String() + path, nil
}

// callbackResult is what came back to the redirect URI.
type callbackResult struct {
	code string
	err  error
}

// authorize runs the authorization code flow for rec's client, asking for
// scopes, and sets rec's token and scopes. ln is the redirect listener.
// The verifier, the code and the tokens join secrets as they are made.
func (m *Manager) authorize(ctx context.Context, rec *Record, scopes []string, ln net.Listener, opts LoginOptions, secrets *redact.Set) error {
	ru, err := url.Parse(rec.Client.RedirectURI)
	if err != nil {
		return fmt.Errorf("server %s: bad redirect URI", rec.Server)
	}
	state := randomString()
	verifier := oauth2.GenerateVerifier()
	secrets.Add(verifier)
	cfg := rec.config(scopes)
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", rec.Resource))

	cb := make(callbacks, 1)
	stop := m.serveRedirect(ctx, ln, rec, ru.Path, state, cb)
	defer stop()
	m.reachApprover(ctx, rec, authURL, ru.Host, state, opts, cb)
	code, err := cb.wait(ctx, rec.Server, opts.Wait)
	if err != nil {
		return err
	}
	secrets.Add(code)
	return m.exchange(ctx, rec, cfg, code, verifier, scopes, secrets)
}

// callbacks carries the first authorization response to come back: from
// the redirect listener, from a pasted address, or the failure of a
// followed authorization URL. It is made with room for one.
type callbacks chan callbackResult

// deliver keeps r unless a response has come back already.
func (c callbacks) deliver(r callbackResult) {
	select {
	case c <- r:
	default:
	}
}

// wait returns the code of the first response to come back, within wait
// (0 means defaultWait) and ctx.
func (c callbacks) wait(ctx context.Context, server string, wait time.Duration) (string, error) {
	if wait <= 0 {
		wait = defaultWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var res callbackResult
	select {
	case res = <-c:
	case <-timer.C:
		return "", fmt.Errorf("server %s: no redirect came back within %s", server, wait)
	case <-ctx.Done():
		return "", fmt.Errorf("server %s: login: %w", server, ctx.Err())
	}
	if res.err != nil {
		return "", res.err
	}
	return res.code, nil
}

// serveRedirect answers the redirect to path on ln, delivering each
// authorization response to cb, until the returned stop is called.
func (m *Manager) serveRedirect(ctx context.Context, ln net.Listener, rec *Record, path, state string, cb callbacks) (stop func()) {
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: m.redirectHandler(rec, path, state, cb)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-served
	}
}

// redirectHandler takes the browser's redirect to path: it checks the
// authorization response, tells the person how the login went and
// delivers the response to cb.
func (m *Manager) redirectHandler(rec *Record, path, state string, cb callbacks) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path && !(path == "" && r.URL.Path == "/") {
			http.NotFound(w, r)
			return
		}
		res := m.callback(rec, r.URL.Query(), state)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<!doctype html><title>mcp</title><p>mcp: the login to %s failed: %s</p>\n", html.EscapeString(rec.Server), html.EscapeString(res.err.Error()))
		} else {
			fmt.Fprintf(w, "<!doctype html><title>mcp</title><p>mcp: logged in to %s. You can close this window.</p>\n", html.EscapeString(rec.Server))
		}
		cb.deliver(res)
	})
}

// reachApprover takes authURL to whoever approves the login: with
// opts.Follow it fetches the URL itself (and, when that does not end in
// the redirect back, delivers why to cb); otherwise it writes the URL to
// opts.Prompt, opens it with opts.Browser and reads a pasted address from
// opts.Paste. redirectHost is where the redirect is awaited.
func (m *Manager) reachApprover(ctx context.Context, rec *Record, authURL, redirectHost, state string, opts LoginOptions, cb callbacks) {
	if opts.Follow {
		if err := m.follow(ctx, authURL, rec.Client.RedirectURI); err != nil {
			cb.deliver(callbackResult{err: fmt.Errorf("server %s: following the authorization URL: %w", rec.Server, err)})
		} else {
			cb.deliver(callbackResult{err: fmt.Errorf("server %s: the authorization server did not redirect back without a person; log in without --follow", rec.Server)})
		}
		return
	}
	prompt := opts.Prompt
	if prompt == nil {
		prompt = io.Discard
	}
	fmt.Fprintf(prompt, "mcp: to log in to %s, open this URL in a browser:\n\n  %s\n\n", rec.Server, authURL)
	if opts.Browser != nil {
		if err := opts.Browser(authURL); err != nil {
			fmt.Fprintf(prompt, "mcp: could not open a browser (%s); open the URL yourself\n", describe(err))
		}
	}
	fmt.Fprintf(prompt, "mcp: waiting for the authorization server to redirect to %s\n", redirectHost)
	if opts.Paste != nil {
		fmt.Fprintf(prompt, "mcp: if the browser runs on another machine, paste the address it was redirected to here\n")
		// The read cannot be interrupted; the goroutine ends with the
		// input or the process.
		go m.readPasted(rec, opts.Paste, state, cb)
	}
}

// readPasted delivers to cb the authorization response in the first line
// of in that is an address carrying a state.
func (m *Manager) readPasted(rec *Record, in io.Reader, state string, cb callbacks) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		u, err := url.Parse(strings.TrimSpace(sc.Text()))
		if err == nil && u.Query().Get("state") != "" {
			cb.deliver(m.callback(rec, u.Query(), state))
			return
		}
	}
}

// callback checks the authorization response (RFC 6749 §4.1.2, RFC 9207).
func (m *Manager) callback(rec *Record, q url.Values, state string) callbackResult {
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		return callbackResult{err: fmt.Errorf("server %s: the authorization response does not carry the state of the request", rec.Server)}
	}
	if iss := q.Get("iss"); iss != "" || rec.IssParameter {
		if rec.Issuer != "" && iss != rec.Issuer {
			return callbackResult{err: fmt.Errorf("server %s: the authorization response comes from issuer %q, not %q", rec.Server, clean(iss, 200), rec.Issuer)}
		}
	}
	if e := q.Get("error"); e != "" {
		msg := clean(e, 64)
		if d := q.Get("error_description"); d != "" {
			msg += ": " + clean(d, 200)
		}
		return callbackResult{err: fmt.Errorf("server %s: the authorization server refused: %s", rec.Server, msg)}
	}
	code := q.Get("code")
	if code == "" {
		return callbackResult{err: fmt.Errorf("server %s: the authorization response has no code", rec.Server)}
	}
	return callbackResult{code: code}
}

// follow GETs the authorization URL and its redirects, as a browser would
// for a server that approves without asking, until the redirect to the
// loopback listener has been answered. The redirects keep to the rule of
// every client of mcp (internal/redirect), the one to callback, the
// redirect URI, allowed over http from https.
func (m *Manager) follow(ctx context.Context, authURL, callback string) error {
	jar, _ := cookiejar.New(nil)
	policy := redirect.Policy{}
	if u, err := url.Parse(callback); err == nil {
		policy.Callback = u
	}
	c := &http.Client{Timeout: requestTimeout, Jar: jar, CheckRedirect: policy.Check}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return errors.New("the authorization URL is not valid")
	}
	resp, err := c.Do(req)
	if err != nil {
		return reachError(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return nil
}

// exchange trades the code for a token and sets rec's token and scopes.
func (m *Manager) exchange(ctx context.Context, rec *Record, cfg *oauth2.Config, code, verifier string, scopes []string, secrets *redact.Set) error {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, httpClient)
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", rec.Resource))
	if err != nil {
		return fmt.Errorf("server %s: the token endpoint %s", rec.Server, tokenErrorText(err, secrets))
	}
	secrets.Add(tok.AccessToken, tok.RefreshToken)
	return rec.setToken(tok, scopes)
}

// config is the oauth2 configuration of rec's client.
func (rec *Record) config(scopes []string) *oauth2.Config {
	style := oauth2.AuthStyleInParams
	if rec.Client.AuthMethod == "client_secret_basic" {
		style = oauth2.AuthStyleInHeader
	}
	secret := rec.Client.Secret
	if rec.Client.AuthMethod == "none" {
		secret = ""
	}
	return &oauth2.Config{
		ClientID:     rec.Client.ID,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: rec.AuthorizationEndpoint, TokenURL: rec.TokenEndpoint, AuthStyle: style},
		RedirectURL:  rec.Client.RedirectURI,
		Scopes:       scopes,
	}
}

// setToken keeps tok; scopes were asked for and are taken as granted when
// the token response does not say.
func (rec *Record) setToken(tok *oauth2.Token, scopes []string) error {
	if t := tok.Type(); !strings.EqualFold(t, "Bearer") {
		return fmt.Errorf("server %s: the token endpoint issued a %q token; mcp sends Bearer tokens only", rec.Server, clean(t, 32))
	}
	rec.Token = &Token{AccessToken: tok.AccessToken, TokenType: "Bearer", RefreshToken: tok.RefreshToken, Expiry: tok.Expiry.UTC()}
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		rec.Scopes = strings.Fields(s)
	} else if len(scopes) > 0 {
		rec.Scopes = scopes
	}
	rec.WantScopes = nil
	rec.Updated = time.Now().UTC()
	return nil
}

// tokenErrorText describes a failed token request without secrets.
func tokenErrorText(err error, secrets *redact.Set) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return "refused: " + oauthErrorText(status, re.Body, secrets)
	}
	return "failed: " + describeWithout(err, secrets)
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// clean bounds s and replaces what is not printable ASCII.
func clean(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		if c := s[i]; c >= ' ' && c < 0x7f {
			b.WriteByte(c)
		} else {
			b.WriteByte('?')
		}
	}
	if b.Len() >= max && len(s) > max {
		b.WriteString("…")
	}
	return b.String()
}
