// Package auth gives mcp its credentials for remote MCP servers: OAuth 2.1
// as the MCP authorization specification describes it, and the store that
// keeps what a login obtained.
//
// A login (Manager.Login) discovers the server's protected resource
// metadata (RFC 9728) and its authorization server's metadata (RFC 8414,
// or OpenID Connect Discovery), picks a client — one configured in the
// binding, a client id metadata document, or one registered dynamically
// (RFC 7591) — and runs the authorization code flow with PKCE (S256) and
// the resource indicator (RFC 8707) through a loopback redirect.
//
// Connections then go through Manager.RoundTripper, which sends the token
// to the server's origin only, refreshes it before it expires and when the
// server answers 401, and asks for a wider scope when the server answers
// 403 insufficient_scope and that can be done without a person. Anything
// else that needs a person is a *LoginRequiredError.
//
// Static credentials (headers and env of a binding) need nothing from
// this package: an endpoint with its own Authorization header is never
// given an OAuth token.
package auth

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/redirect"
	"github.com/mcpsh/mcp/manifests"
)

// Manager logs in to servers and authorizes requests to them. Its fields
// are read-only once it is in use.
type Manager struct {
	Store *Store
	// ClientName and ClientVersion name this program to authorization
	// servers when it registers ("mcp", "dev" when empty).
	ClientName, ClientVersion string
	// AutoFollow lets a connection widen its grant when a server asks for
	// more scope, by following the authorization URL itself: for
	// authorization servers that approve without a person.
	AutoFollow bool
}

// requestTimeout bounds one discovery, registration or token request.
const requestTimeout = 30 * time.Second

// refreshMargin is how long before its expiry a token is refreshed.
const refreshMargin = time.Minute

// httpClient makes the discovery, registration, token and revocation
// requests. Its redirects keep to the rule of every client of mcp
// (internal/redirect); a request that sends an endpoint's headers goes
// through withHeaders.
var httpClient = &http.Client{Timeout: requestTimeout, CheckRedirect: redirect.Check}

// withHeaders is httpClient for a request that carries the headers ep's
// configuration sets: none of them follows a redirect to another origin.
func withHeaders(ep manifests.Endpoint) *http.Client {
	return redirect.Policy{Configured: slices.Collect(maps.Keys(ep.Headers))}.Client(httpClient)
}

func (m *Manager) clientName() string {
	if m.ClientName == "" {
		return "mcp"
	}
	return m.ClientName
}

func (m *Manager) clientVersion() string {
	if m.ClientVersion == "" {
		return "dev"
	}
	return m.ClientVersion
}

// LoginRequiredError says a server needs a login that only a person can
// give: there is no stored token, it cannot be refreshed, or the server
// asks for scopes the stored login lacks.
type LoginRequiredError struct {
	Server string
	// Reason says why, in a few words.
	Reason string
	// Scopes are the scopes the server asked for, when that is the reason;
	// the next login asks for them.
	Scopes []string
}

func (e *LoginRequiredError) ExitCode() int { return exit.Upstream }

func (e *LoginRequiredError) Error() string {
	return fmt.Sprintf("server %s needs a login (%s)", e.Server, e.Reason)
}

// Command is what a person runs, outside any session, to log in.
func (e *LoginRequiredError) Command() string { return "mcp auth login " + e.Server }

// Summary says in a few words what to do, for a column of one line per
// server.
func (e *LoginRequiredError) Summary() string { return "needs a login: run `" + e.Command() + "`" }

// NoOAuthError says a server answered without a login and publishes no
// OAuth metadata: there is nothing to log in to.
type NoOAuthError struct{ Server string }

func (e *NoOAuthError) ExitCode() int { return exit.Usage }

func (e *NoOAuthError) Error() string {
	return fmt.Sprintf("server %s answered without a login and publishes no OAuth metadata: there is nothing to log in to", e.Server)
}

// Summary says the cause in a few words.
func (e *NoOAuthError) Summary() string {
	return "publishes no OAuth metadata: there is nothing to log in to"
}

// hasAuthorization says whether headers set Authorization themselves.
func hasAuthorization(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}
