package auth

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/manifests"
)

// movedTo returns the authorization server the protected resource's
// metadata names when it no longer names the one rec's login went
// through (SEP-2352); "" when it still does, or cannot be read. ch is the
// challenge of the server's 401.
func (t *transport) movedTo(ctx context.Context, rec *Record, ch challenge) string {
	if rec.Issuer == "" {
		return "" // a 2025-03-26 server, without metadata
	}
	u, err := url.Parse(t.url)
	if err != nil {
		return ""
	}
	for _, c := range metadataCandidates(u, &ch) {
		var prm resourceMetadata
		found, err := t.m.getJSON(ctx, c, &prm)
		if err != nil || !found {
			continue
		}
		for _, as := range prm.AuthorizationServers {
			if sameIssuer(as, rec.Issuer) {
				return ""
			}
		}
		if len(prm.AuthorizationServers) > 0 {
			return prm.AuthorizationServers[0]
		}
		return ""
	}
	return ""
}

func sameIssuer(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// migrate follows the server to the authorization server issuer: with
// AutoFollow, a login as `mcp auth login` runs it, which registers a
// client with the new server (a client of one authorization server is
// never presented to another); otherwise the stored token is forgotten
// and only a person can log in again.
func (t *transport) migrate(ctx context.Context, issuer string) (*Record, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cached = nil
	reason := "the server now uses the authorization server " + issuer
	if !t.m.AutoFollow || t.stepUps >= maxStepUps {
		if rec, err := t.m.Store.Get(t.server, t.url); err == nil && rec != nil {
			next := *rec
			next.Token = nil
			_ = t.m.Store.Put(&next)
		}
		return nil, t.loginRequired(reason, nil)
	}
	t.stepUps++
	rec, err := t.m.login(ctx, t.ep, LoginOptions{Follow: true}, t.secrets)
	if err != nil {
		return nil, t.secrets.Error(err)
	}
	return rec, nil
}

// MovedClientError says a server moved to another authorization server
// than the one its configured client was used with: the client, and its
// secret, are not presented to the new one.
type MovedClientError struct {
	Server, Issuer, Previous, ClientID string
}

func (e *MovedClientError) ExitCode() int { return exit.Config }

func (e *MovedClientError) Error() string {
	return fmt.Sprintf("server %s now uses the authorization server %s, and its configured client %s was used with %s: register a client with %s and set oauth.clientId (and clientSecret), or, if the client is that server's too, run `mcp auth logout %s` and log in again",
		e.Server, e.Issuer, clean(e.ClientID, 100), e.Previous, e.Issuer, e.Server)
}

// Summary says the cause in a few words.
func (e *MovedClientError) Summary() string {
	return "moved to another authorization server than its configured client's"
}

// checkMovedClient refuses to present the configured client of ep to the
// authorization server of d when the last login went through another one
// with the same client. A client id metadata document is anyone's to
// present.
func checkMovedClient(ep manifests.Endpoint, d *discovery, prev *Record) error {
	if prev == nil || prev.Issuer == "" || d.as.Issuer == "" || sameIssuer(prev.Issuer, d.as.Issuer) {
		return nil
	}
	o := ep.OAuth
	if o == nil || o.ClientID == "" || isMetadataDocumentURL(o.ClientID) || prev.Client.Source != ClientConfigured || prev.Client.ID != o.ClientID {
		return nil
	}
	return &MovedClientError{Server: ep.ID, Issuer: d.as.Issuer, Previous: prev.Issuer, ClientID: o.ClientID}
}
