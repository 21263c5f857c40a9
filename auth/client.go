package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// NoClientError says there is no client to log in with: none is
// configured and the authorization server does not register clients.
type NoClientError struct{ Server string }

func (e *NoClientError) ExitCode() int { return exit.Config }

func (e *NoClientError) Error() string {
	return fmt.Sprintf("server %s: its authorization server does not register clients dynamically, and no client is configured", e.Server)
}

// Summary says the cause in a few words.
func (e *NoClientError) Summary() string {
	return "needs an OAuth client: its authorization server registers none; set oauth.clientId"
}

// isMetadataDocumentURL says whether a client id is a client id metadata
// document URL: https with a path.
func isMetadataDocumentURL(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/" && u.Fragment == ""
}

// chooseClient picks the client of a login, in the order the MCP
// authorization spec gives: a client configured in the binding; a client
// id metadata document, when the server takes them; a client registered
// before with the same authorization server; a new registration.
func (m *Manager) chooseClient(ctx context.Context, ep manifests.Endpoint, d *discovery, prev *Record, redirect string) (Client, error) {
	o := ep.OAuth
	if o != nil && o.ClientID != "" {
		if !isMetadataDocumentURL(o.ClientID) {
			method := o.AuthMethod
			if method == "" {
				method = pickAuthMethod(o.ClientSecret, d.as.TokenEndpointAuthMethodsSupported)
			}
			return Client{ID: o.ClientID, Secret: o.ClientSecret, AuthMethod: method, RedirectURI: redirect, Source: ClientConfigured}, nil
		}
		if d.as.ClientIDMetadataDocumentSupported {
			return Client{ID: o.ClientID, AuthMethod: "none", RedirectURI: redirect, Source: ClientMetadataDocument}, nil
		}
	}
	issuer := registrationKey(d)
	if prev != nil && prev.Client.Source == ClientRegistered && prev.Client.Issuer == issuer &&
		(prev.Client.SecretExpires.IsZero() || prev.Client.SecretExpires.After(time.Now().Add(time.Minute))) {
		c := prev.Client
		c.RedirectURI = redirect
		return c, nil
	}
	if d.as.RegistrationEndpoint == "" {
		return Client{}, &NoClientError{Server: ep.ID}
	}
	return m.register(ctx, ep.ID, d, redirect)
}

// registrationKey identifies the authorization server a client is
// registered with.
func registrationKey(d *discovery) string {
	if d.as.Issuer != "" {
		return d.as.Issuer
	}
	return d.as.RegistrationEndpoint
}

// pickAuthMethod chooses how a client with this secret authenticates at a
// token endpoint that supports these methods (RFC 8414's default when
// unsaid: client_secret_basic).
func pickAuthMethod(secret string, supported []string) string {
	switch {
	case secret == "":
		return "none"
	case len(supported) == 0, slices.Contains(supported, "client_secret_basic"):
		return "client_secret_basic"
	case slices.Contains(supported, "client_secret_post"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// registrationMethod is the method a new registration asks for: none (a
// public client, as a command-line program is) when the server allows it.
func registrationMethod(supported []string) string {
	switch {
	case len(supported) == 0, slices.Contains(supported, "none"):
		return "none"
	case slices.Contains(supported, "client_secret_basic"):
		return "client_secret_basic"
	case slices.Contains(supported, "client_secret_post"):
		return "client_secret_post"
	}
	return "none"
}

// register registers a client dynamically (RFC 7591).
func (m *Manager) register(ctx context.Context, server string, d *discovery, redirect string) (Client, error) {
	method := registrationMethod(d.as.TokenEndpointAuthMethodsSupported)
	body, _ := json.Marshal(map[string]any{
		"client_name":                m.clientName(),
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"application_type":           "native",
		"software_id":                "github.com/mcpsh/mcp",
		"software_version":           m.clientVersion(),
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return Client{}, fmt.Errorf("server %s: registration endpoint is not a valid URL", server)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return Client{}, fmt.Errorf("server %s: registering a client: %w", server, reachError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize))
	if err != nil {
		return Client{}, fmt.Errorf("server %s: registering a client: %s", server, describe(err))
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return Client{}, fmt.Errorf("server %s: the authorization server refused to register a client: %s",
			server, oauthErrorText(resp.StatusCode, data, nil))
	}
	var r struct {
		ClientID              string `json:"client_id"`
		ClientSecret          string `json:"client_secret"`
		ClientSecretExpiresAt int64  `json:"client_secret_expires_at"`
		AuthMethod            string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.ClientID == "" {
		return Client{}, fmt.Errorf("server %s: the authorization server's registration answer has no client_id", server)
	}
	c := Client{ID: r.ClientID, Secret: r.ClientSecret, AuthMethod: r.AuthMethod, RedirectURI: redirect,
		Source: ClientRegistered, Issuer: registrationKey(d)}
	if r.ClientSecretExpiresAt > 0 {
		c.SecretExpires = time.Unix(r.ClientSecretExpiresAt, 0).UTC()
	}
	if c.AuthMethod == "" {
		c.AuthMethod = pickAuthMethod(c.Secret, d.as.TokenEndpointAuthMethodsSupported)
	}
	if !slices.Contains(manifests.AuthMethods, c.AuthMethod) {
		return Client{}, fmt.Errorf("server %s: the authorization server registered a client with token endpoint authentication %q, which mcp does not support", server, c.AuthMethod)
	}
	return c, nil
}

// chooseScopes picks the scopes a login asks for: the binding's; else
// those of the server's challenge; else every scope the protected resource
// metadata lists; else none (the parameter is left out). Scopes the server
// asked for in an insufficient_scope challenge are added, and
// offline_access when the authorization server offers it.
func chooseScopes(ep manifests.Endpoint, d *discovery, prev *Record) []string {
	var s []string
	switch {
	case ep.OAuth != nil && len(ep.OAuth.Scopes) > 0:
		s = ep.OAuth.Scopes
	case len(d.challenge) > 0:
		s = d.challenge
	case d.prm != nil:
		s = d.prm.ScopesSupported
	}
	if prev != nil {
		s = union(s, prev.WantScopes)
	}
	return withOfflineAccess(s, d.as.ScopesSupported)
}

// withOfflineAccess adds offline_access, which asks for a refresh token,
// when the authorization server lists it and some scope is asked for
// anyway (adding it alone would replace the server's default scopes).
func withOfflineAccess(s, supported []string) []string {
	if len(s) > 0 && slices.Contains(supported, "offline_access") && !slices.Contains(s, "offline_access") {
		return append(slices.Clone(s), "offline_access")
	}
	return s
}

// union is a followed by the elements of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// subset says whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// oauthErrorText describes an OAuth error response (RFC 6749 §5.2) from
// its error code and description only, bounded, printable, and without
// secrets (taken out before the text is cut, so that no part of one is
// left).
func oauthErrorText(status int, body []byte, secrets *redact.Set) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return fmt.Sprintf("%d %s", status, http.StatusText(status))
	}
	msg := clean(secrets.Text(e.Error), 64)
	if e.Description != "" {
		msg += ": " + clean(secrets.Text(e.Description), 200)
	}
	return msg
}
