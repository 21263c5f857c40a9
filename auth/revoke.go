package auth

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpsh/mcp/internal/redact"
)

// LogoutResult says what a logout did.
type LogoutResult struct {
	// Removed counts the stored logins forgotten here.
	Removed int
	// Revoked counts the tokens the authorization servers revoked.
	Revoked int
	// NotRevocable counts the stored logins whose authorization server
	// offers no revocation: their tokens are only forgotten here.
	NotRevocable int
	// Warnings say which revocations failed, one line each, without
	// secrets. Those tokens are forgotten here all the same.
	Warnings []string
}

// Logout ends every stored login of server, whatever its URL: it revokes
// the tokens at the authorization server when that offers revocation
// (RFC 7009: the refresh token first, which ends the grant, then the
// access token), then deletes them here whether or not revocation worked.
func (m *Manager) Logout(ctx context.Context, server string) (*LogoutResult, error) {
	recs, err := m.Store.Records(server)
	if err != nil {
		return nil, err
	}
	res := &LogoutResult{}
	for _, rec := range recs {
		// No refresh may store a new token while this one is revoked.
		unlock, err := m.Store.lock(rec.Server, rec.URL)
		if err != nil {
			return nil, err
		}
		defer unlock()
		if fresh, err := m.Store.Get(rec.Server, rec.URL); err == nil && fresh != nil {
			rec = fresh
		}
		m.revokeRecord(ctx, rec, res)
	}
	res.Removed, err = m.Store.Delete(server)
	return res, err
}

// revokeRecord revokes rec's tokens and notes the outcome in res.
func (m *Manager) revokeRecord(ctx context.Context, rec *Record, res *LogoutResult) {
	if !hasToken(rec) {
		return
	}
	if rec.RevocationEndpoint == "" {
		res.NotRevocable++
		return
	}
	if err := checkSecureURL(rec.RevocationEndpoint); err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("server %s: the tokens were not sent to the revocation endpoint: %v", rec.Server, err))
		return
	}
	for _, t := range []struct{ value, hint, name string }{
		{rec.Token.RefreshToken, "refresh_token", "refresh token"},
		{rec.Token.AccessToken, "access_token", "access token"},
	} {
		if t.value == "" {
			continue
		}
		if err := m.revoke(ctx, rec, t.value, t.hint); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("server %s: the authorization server did not revoke the %s: %s", rec.Server, t.name, err))
			continue
		}
		res.Revoked++
	}
}

// revoke asks rec's authorization server to revoke token (RFC 7009 §2.1),
// authenticating as rec's client does at the token endpoint.
func (m *Manager) revoke(ctx context.Context, rec *Record, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	c := rec.Client
	basic := c.AuthMethod == "client_secret_basic" && c.Secret != ""
	switch {
	case basic:
	case c.AuthMethod == "client_secret_post" && c.Secret != "":
		form.Set("client_id", c.ID)
		form.Set("client_secret", c.Secret)
	default:
		form.Set("client_id", c.ID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("the revocation endpoint is not a valid URL")
	}
	if basic {
		// RFC 6749 §2.3.1: form-encoded, as x/oauth2 does at the token endpoint.
		req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	secrets := new(redact.Set)
	noteSecrets(secrets, rec)
	resp, err := httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("failed: %s", describeWithout(err, secrets))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("refused: %s", oauthErrorText(resp.StatusCode, body, secrets))
	}
	return nil
}

// withFormParams returns a client like c whose form-encoded POSTs also
// carry params (those a request already has are kept).
func withFormParams(c *http.Client, params url.Values) *http.Client {
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out := *c
	out.Transport = &formParams{base: base, params: params}
	return &out
}

type formParams struct {
	base   http.RoundTripper
	params url.Values
}

func (f *formParams) RoundTrip(req *http.Request) (*http.Response, error) {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if req.Method != http.MethodPost || req.Body == nil || mt != "application/x-www-form-urlencoded" {
		return f.base.RoundTrip(req)
	}
	data, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(data))
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	for k, vs := range f.params {
		if !form.Has(k) {
			form[k] = vs
		}
	}
	body := form.Encode()
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(strings.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	return f.base.RoundTrip(out)
}
