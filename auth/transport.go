package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// maxStepUps bounds how often one connection widens its grant: servers
// that keep asking for more must not loop (MCP authorization, "Scope
// Challenge Handling").
const maxStepUps = 2

// RoundTripper returns base with OAuth for the server ep (an expanded
// endpoint): requests to the server's origin carry its stored token, which
// is refreshed before it expires and once when the server answers 401; a
// 403 insufficient_scope is answered with a wider grant when AutoFollow
// allows it. When only a person can help, requests fail with a
// *LoginRequiredError. An endpoint that sets its own Authorization header,
// or has no url, gets base unchanged.
//
// The tokens and the client's secret join secrets (nil: a set of its own)
// as they are read from the store or obtained, so that the connection's
// errors, and those of refreshes, hold none of them.
func (m *Manager) RoundTripper(ep manifests.Endpoint, base http.RoundTripper, secrets *redact.Set) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	u, err := url.Parse(ep.URL)
	if m == nil || m.Store == nil || ep.URL == "" || err != nil || u.Host == "" || hasAuthorization(ep.Headers) {
		return base
	}
	if secrets == nil {
		secrets = new(redact.Set)
	}
	return &transport{m: m, ep: ep, server: ep.ID, url: ep.URL, origin: origin(u), base: base, secrets: secrets}
}

type transport struct {
	m       *Manager
	ep      manifests.Endpoint
	server  string
	url     string
	origin  string
	base    http.RoundTripper
	secrets *redact.Set

	mu      sync.Mutex // serializes refreshes and step-ups, and guards below
	cached  *Record
	modTime time.Time // of the file cached was read from
	size    int64
	stepUps int
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(origin(req.URL), t.origin) {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	rec, err := t.current(ctx)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// Keep the body so that the request can be sent again.
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(ctx)
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	refreshed, steppedUp := false, false
	for attempt := 0; ; attempt++ {
		out, err := t.prepare(req, rec, attempt > 0)
		if err != nil {
			return nil, err
		}
		resp, err := t.base.RoundTrip(out)
		if err != nil {
			return nil, err
		}
		ch, bearer := bearerChallenge(resp.Header)
		switch {
		case resp.StatusCode == http.StatusUnauthorized && bearer:
			discard(resp)
			if !hasToken(rec) {
				return nil, t.loginRequired(noLoginReason(rec), nil)
			}
			if refreshed {
				return nil, t.loginRequired("the server refuses the stored token", nil)
			}
			refreshed = true
			if issuer := t.movedTo(ctx, rec, ch); issuer != "" {
				if rec, err = t.migrate(ctx, issuer); err != nil {
					return nil, err
				}
				continue
			}
			if rec, err = t.refresh(ctx, rec); err != nil {
				return nil, err
			}
		case resp.StatusCode == http.StatusForbidden && bearer && ch.params["error"] == "insufficient_scope" && hasToken(rec):
			discard(resp)
			asked := strings.Join(ch.scopes(), " ")
			need := union(rec.Scopes, ch.scopes())
			switch {
			case subset(need, rec.Scopes):
				return nil, t.loginRequired("the server asks for scope "+asked+", which the login already has", nil)
			case steppedUp:
				return nil, t.loginRequired("the server still asks for scope "+asked+" after a wider grant", need)
			}
			if rec, err = t.stepUp(ctx, rec, need, asked); err != nil {
				return nil, err
			}
			steppedUp = true
		default:
			return resp, nil
		}
	}
}

// prepare returns the request to send: a copy with the token, its body
// rewound when it is sent again.
func (t *transport) prepare(req *http.Request, rec *Record, again bool) (*http.Request, error) {
	out := req.Clone(req.Context())
	if again && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		out.Body = body
	}
	if hasToken(rec) {
		out.Header.Set("Authorization", "Bearer "+rec.Token.AccessToken)
	}
	return out, nil
}

// noLoginReason says why there is no token to send.
func noLoginReason(rec *Record) string {
	if rec == nil {
		return "no stored login"
	}
	return "the stored login has ended"
}

func hasToken(rec *Record) bool { return rec != nil && rec.Token != nil && rec.Token.AccessToken != "" }

// noteSecrets adds rec's secrets to s: its client's secret (with the Basic
// credentials made of it) and its tokens.
func noteSecrets(s *redact.Set, rec *Record) {
	s.AddBasic(rec.Client.ID, rec.Client.Secret)
	if rec.Token != nil {
		s.Add(rec.Token.AccessToken, rec.Token.RefreshToken)
	}
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// current returns the stored record (re-read when its file changed),
// refreshing its token first when it is about to expire.
func (t *transport) current(ctx context.Context) (*Record, error) {
	t.mu.Lock()
	rec, err := t.loadLocked()
	t.mu.Unlock()
	if err != nil || !hasToken(rec) {
		return rec, err
	}
	if exp := rec.Token.Expiry; !exp.IsZero() && rec.Token.RefreshToken != "" && time.Now().Add(refreshMargin).After(exp) {
		return t.refresh(ctx, rec)
	}
	return rec, nil
}

func (t *transport) loadLocked() (*Record, error) {
	st, err := os.Stat(t.m.Store.path(t.server, t.url))
	if err != nil {
		t.cached = nil
		return nil, nil
	}
	if t.cached != nil && st.ModTime().Equal(t.modTime) && st.Size() == t.size {
		return t.cached, nil
	}
	rec, err := t.m.Store.Get(t.server, t.url)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		noteSecrets(t.secrets, rec)
	}
	t.cached, t.modTime, t.size = rec, st.ModTime(), st.Size()
	return rec, nil
}

// refresh renews stale's token, unless another request or process already
// did. A refresh the authorization server refuses ends the login.
func (t *transport) refresh(ctx context.Context, stale *Record) (*Record, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	unlock, err := t.m.Store.lock(t.server, t.url)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t.cached = nil
	rec, err := t.loadLocked()
	if err != nil {
		return nil, err
	}
	if !hasToken(rec) {
		return nil, t.loginRequired(noLoginReason(rec), nil)
	}
	if rec.Token.AccessToken != stale.Token.AccessToken && !rec.expiresSoon(time.Now()) {
		return rec, nil // refreshed meanwhile
	}
	if rec.Token.RefreshToken == "" {
		return nil, t.loginRequired("the token expired or was refused, and there is no refresh token", nil)
	}
	cfg := rec.config(nil)
	// RFC 8707: a refresh names the resource as the authorization request
	// did, which x/oauth2's refresh cannot say by itself.
	hc := httpClient
	if rec.Resource != "" {
		hc = withFormParams(hc, url.Values{"resource": {rec.Resource}})
	}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, hc)
	tok, err := cfg.TokenSource(hctx, &oauth2.Token{RefreshToken: rec.Token.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 {
			// The grant is gone: forget the token, keep the client.
			next := *rec
			next.Token = nil
			_ = t.m.Store.Put(&next)
			t.cached = nil
			return nil, t.loginRequired("the authorization server refused to refresh it", nil)
		}
		return nil, fmt.Errorf("server %s: refreshing the login: the token endpoint %s", t.server, tokenErrorText(err, t.secrets))
	}
	t.secrets.Add(tok.AccessToken, tok.RefreshToken)
	next := *rec
	if err := next.setToken(tok, rec.Scopes); err != nil {
		return nil, err
	}
	if err := t.m.Store.Put(&next); err != nil {
		return nil, err
	}
	t.cached = nil
	return &next, nil
}

func (rec *Record) expiresSoon(now time.Time) bool {
	return rec.Token != nil && !rec.Token.Expiry.IsZero() && now.Add(refreshMargin).After(rec.Token.Expiry)
}

// stepUp widens the grant to scopes need, without a person when
// AutoFollow allows; otherwise it records need for the next login.
func (t *transport) stepUp(ctx context.Context, rec *Record, need []string, asked string) (*Record, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.m.AutoFollow || t.stepUps >= maxStepUps {
		if cur := t.recordWant(rec, need); cur != nil {
			return cur, nil
		}
		return nil, t.loginRequired("the server asks for scope "+asked, need)
	}
	t.cached = nil
	if cur, err := t.loadLocked(); err == nil && widened(cur, rec, need) {
		return cur, nil // by another request's step-up, or a login
	}
	t.stepUps++
	ln, redirect, err := listen(rec.Client.RedirectURI, false)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", t.server, err)
	}
	defer ln.Close()
	next := *rec
	next.Client.RedirectURI = redirect
	if err := t.m.authorize(ctx, &next, need, ln, LoginOptions{Follow: true}, t.secrets); err != nil {
		return nil, err
	}
	next.Client.RedirectURI = rec.Client.RedirectURI
	if err := t.m.Store.Put(&next); err != nil {
		return nil, err
	}
	t.cached = nil
	return &next, nil
}

// recordWant keeps need in the store for the next login. It writes the
// record as it is now, under the record's lock, not rec, which the refused
// request was sent with: another process may have logged in (or out) since,
// and what it wrote stays. When that login grants need, it is returned, for
// the request to be sent again with it. Called with t.mu held.
func (t *transport) recordWant(rec *Record, need []string) *Record {
	unlock, err := t.m.Store.lock(t.server, t.url)
	if err != nil {
		return nil
	}
	defer unlock()
	t.cached = nil
	cur, err := t.loadLocked()
	if err != nil || cur == nil {
		return nil
	}
	if widened(cur, rec, need) {
		return cur
	}
	next := *cur
	next.WantScopes = union(cur.WantScopes, need)
	_ = t.m.Store.Put(&next)
	t.cached = nil
	return nil
}

// widened says cur, the record in the store, is a grant other than rec's
// that has the scopes need.
func widened(cur, rec *Record, need []string) bool {
	return hasToken(cur) && cur.Token.AccessToken != rec.Token.AccessToken && subset(need, cur.Scopes)
}

// loginRequired says only a person can help. The reason may quote what the
// server asked for, which goes without secrets.
func (t *transport) loginRequired(reason string, scopes []string) error {
	return &LoginRequiredError{Server: t.server, Reason: t.secrets.Text(reason), Scopes: scopes}
}
