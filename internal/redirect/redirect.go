// Package redirect is the one rule for the redirects mcp's HTTP clients
// follow, toward MCP servers and authorization servers alike: a redirect
// keeps a request's credentials at the origin they were set for.
//
//   - A redirect to another origin (scheme, host and port) goes without
//     every header the endpoint's configuration set and every header that
//     can carry a credential or name a session: only the content
//     negotiation headers in kept go on. Once a chain has left its origin,
//     every later hop is taken as another origin's, even one back.
//   - A redirect to another origin that would send the request's body
//     again (a 307 or 308 of a POST) is refused: a body holds a tool's
//     arguments, a login's code or a refresh token.
//   - A redirect from https to http is refused, except to the loopback
//     listener of a login (Policy.Callback).
//   - A chain ends after maxHops redirects, as net/http's does.
package redirect

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
)

// maxHops is how many redirects a request follows, as net/http's default.
const maxHops = 10

// kept are the headers a request takes to another origin: what it accepts
// and who asks, nothing that names a credential, a session or the URL it
// came from.
var kept = map[string]bool{
	"Accept":               true,
	"Accept-Encoding":      true,
	"Accept-Language":      true,
	"Cache-Control":        true,
	"Last-Event-Id":        true,
	"Mcp-Protocol-Version": true,
	"User-Agent":           true,
}

// Policy is what a client keeps across redirects. The zero value is the
// rule for a client no configuration gave headers to.
type Policy struct {
	// Configured names the headers the endpoint's configuration sets:
	// none of them goes to another origin, whatever its name.
	Configured []string
	// Callback, when set, is the loopback redirect URI of a login, which
	// an https chain may end at over http (RFC 8252 §7.3).
	Callback *url.URL
}

// Check is the rule for a client without configured headers, as an
// http.Client's CheckRedirect.
func Check(req *http.Request, via []*http.Request) error { return Policy{}.Check(req, via) }

// Client is an http.Client like c that follows redirects by p.
func (p Policy) Client(c *http.Client) *http.Client {
	out := *c
	out.CheckRedirect = p.Check
	return &out
}

// Check says whether req, the next hop of the requests via, is sent, and
// takes out of it what must not go where it goes. It is an http.Client's
// CheckRedirect.
func (p Policy) Check(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first, prev := via[0], via[len(via)-1]
	if len(via) >= maxHops {
		return &Error{From: Origin(prev.URL), To: Origin(req.URL), Reason: fmt.Sprintf("stopped after %d redirects", maxHops)}
	}
	if req.URL.Scheme == "http" && !p.callback(req.URL) {
		for _, r := range via {
			if r.URL.Scheme == "https" {
				return &Error{From: Origin(r.URL), To: Origin(req.URL), Reason: "mcp does not follow a redirect from https to http"}
			}
		}
	}
	home := Origin(first.URL)
	left := false
	for _, r := range append(via[1:], req) {
		left = left || Origin(r.URL) != home
	}
	if !left {
		return nil
	}
	if req.Body != nil && req.Body != http.NoBody {
		return &Error{From: Origin(prev.URL), To: Origin(req.URL), Reason: "it would send the request's body to another origin, which mcp does not do"}
	}
	for _, name := range p.Configured {
		req.Header.Del(name)
	}
	for name := range req.Header {
		if !kept[http.CanonicalHeaderKey(name)] {
			delete(req.Header, name)
		}
	}
	return nil
}

// callback says u is the login's loopback listener.
func (p Policy) callback(u *url.URL) bool {
	if p.Callback == nil || Origin(u) != Origin(p.Callback) {
		return false
	}
	host := p.Callback.Hostname()
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// Origin is u's scheme, host and port, in lower case, with the port its
// scheme implies when it names none.
func Origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// Error is a redirect mcp did not follow. It names origins only: a path or
// a query can hold a credential.
type Error struct {
	From, To string
	Reason   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("refused a redirect from %s to %s: %s", e.From, e.To, e.Reason)
}

// ExitCode is that of a server that cannot be reached as it should be.
func (e *Error) ExitCode() int { return exit.Upstream }
