package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/internal/redirect"
	"github.com/mcpsh/mcp/manifests"
)

// protocolVersion is sent in the probe and in discovery requests.
const protocolVersion = "2025-11-25"

// maxMetadataSize bounds a metadata or registration document.
const maxMetadataSize = 1 << 20

// resourceMetadata is OAuth 2.0 Protected Resource Metadata (RFC 9728).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is OAuth 2.0 Authorization Server Metadata (RFC 8414),
// or the same fields of an OpenID Provider configuration.
type serverMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	RegistrationEndpoint                       string   `json:"registration_endpoint"`
	RevocationEndpoint                         string   `json:"revocation_endpoint"`
	ScopesSupported                            []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
}

// discovery is what a login learns before it authorizes.
type discovery struct {
	resource string // RFC 8707 resource indicator
	prm      *resourceMetadata
	as       *serverMetadata
	// legacy: no protected resource metadata; the authorization server is
	// the MCP server's origin, with default endpoints if it publishes no
	// metadata either (the 2025-03-26 revision of the MCP spec).
	legacy bool
	// challenge holds the scopes the server's 401 or 403 asked for.
	challenge []string
}

// probe sends the request a client would start with, unauthenticated, and
// returns the status and the Bearer challenge of the answer.
func (m *Manager) probe(ctx context.Context, ep manifests.Endpoint) (int, *challenge, error) {
	status, ch, err := m.probeWith(ctx, ep, ep.Type == "sse")
	if err == nil && ep.Type == "" && ch == nil && status >= 400 && status < 500 && status != http.StatusUnauthorized {
		// A url without type whose POST is refused may be an SSE server.
		return m.probeWith(ctx, ep, true)
	}
	return status, ch, err
}

func (m *Manager) probeWith(ctx context.Context, ep manifests.Endpoint, sse bool) (int, *challenge, error) {
	var req *http.Request
	var err error
	if sse {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, ep.URL, nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
	} else {
		req, err = m.rpcRequest(ctx, ep, "initialize", map[string]any{
			"protocolVersion": protocolVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": m.clientName(), "version": m.clientVersion()},
		}, "", "")
	}
	if err != nil {
		return 0, nil, fmt.Errorf("server %s: %w", ep.ID, errors.New("its url cannot be requested"))
	}
	status, ch, sid, err := m.send(req, ep)
	if err != nil || sse || ch != nil {
		return status, ch, err
	}
	switch {
	case status/100 == 2:
		// A server may answer initialize without a login and ask for one
		// from the first request that needs it, with the scope it wants:
		// ask for its tools, as a client would next.
		if sid != "" {
			defer m.endSession(ctx, ep, sid)
		}
		if lch := m.listChallenge(ctx, ep, sid, protocolVersion); lch != nil {
			return http.StatusUnauthorized, lch, nil
		}
	case status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		// A server of the 2026-07-28 revision refuses initialize; its
		// requests stand alone.
		if lch := m.listChallenge(ctx, ep, "", modernVersion); lch != nil {
			return http.StatusUnauthorized, lch, nil
		}
	}
	return status, ch, nil
}

// modernVersion is the protocol revision without initialize.
const modernVersion = "2026-07-28"

// listChallenge lists the tools of ep, in session sid (or none) at
// protocol revision version, and returns the Bearer challenge of a 401 or
// 403 answer, if any.
func (m *Manager) listChallenge(ctx context.Context, ep manifests.Endpoint, sid, version string) *challenge {
	params := map[string]any{}
	if version == modernVersion {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": m.clientName(), "version": m.clientVersion()},
		}
	}
	req, err := m.rpcRequest(ctx, ep, "tools/list", params, sid, version)
	if err != nil {
		return nil
	}
	if version == modernVersion {
		req.Header.Set("Mcp-Method", "tools/list")
	}
	status, ch, _, err := m.send(req, ep)
	if err != nil || (status != http.StatusUnauthorized && status != http.StatusForbidden) {
		return nil
	}
	return ch
}

// rpcRequest is a JSON-RPC request of the probe to ep, in the session sid
// and with the MCP-Protocol-Version header version when they are not
// empty.
func (m *Manager) rpcRequest(ctx context.Context, ep manifests.Endpoint, method string, params any, sid, version string) (*http.Request, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "mcp-auth-probe", "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	return req, nil
}

// send sends a request of the probe with ep's headers and returns its
// status, its Bearer challenge and the session it opened.
func (m *Manager) send(req *http.Request, ep manifests.Endpoint) (status int, ch *challenge, sid string, err error) {
	for k, v := range ep.Headers {
		req.Header.Set(k, v)
	}
	resp, err := withHeaders(ep).Do(req)
	if err != nil {
		return 0, nil, "", fmt.Errorf("server %s cannot be reached: %w", ep.ID, reachError(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		sid = resp.Header.Get("Mcp-Session-Id")
	}
	if c, ok := bearerChallenge(resp.Header); ok {
		ch = &c
	}
	return resp.StatusCode, ch, sid, nil
}

// endSession ends the session the probe opened on a stateful server.
func (m *Manager) endSession(ctx context.Context, ep manifests.Endpoint, sid string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, ep.URL, nil)
	if err != nil {
		return
	}
	for k, v := range ep.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := withHeaders(ep).Do(req); err == nil {
		resp.Body.Close()
	}
}

// discover finds the protected resource metadata of ep's server and its
// authorization server's metadata, as the MCP authorization spec orders:
// the resource_metadata URL of the challenge, else the well-known URIs of
// RFC 9728 (path-based first, then the root); then the RFC 8414 and OpenID
// metadata URIs of the authorization server. A server without protected
// resource metadata is treated the 2025-03-26 way.
func (m *Manager) discover(ctx context.Context, ep manifests.Endpoint, status int, ch *challenge) (*discovery, error) {
	u, err := url.Parse(ep.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("server %s: its url is not an absolute URL", ep.ID)
	}
	d := &discovery{}
	if ch != nil {
		d.challenge = ch.scopes()
	}
	for _, c := range metadataCandidates(u, ch) {
		var prm resourceMetadata
		found, err := m.getJSON(ctx, c, &prm)
		if err != nil {
			return nil, fmt.Errorf("server %s: protected resource metadata: %w", ep.ID, err)
		}
		if found {
			d.prm = &prm
			break
		}
	}
	switch {
	case d.prm != nil:
		if err := checkResource(d.prm.Resource, u); err != nil {
			return nil, fmt.Errorf("server %s: protected resource metadata: %w", ep.ID, err)
		}
		d.resource = d.prm.Resource
		if len(d.prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("server %s: its protected resource metadata names no authorization server", ep.ID)
		}
		var errs []error
		for _, issuer := range d.prm.AuthorizationServers {
			as, err := m.serverMetadata(ctx, issuer, true)
			if err == nil && as == nil {
				err = fmt.Errorf("authorization server %s publishes no metadata", issuer)
			}
			if err == nil {
				d.as = as
				break
			}
			errs = append(errs, err)
		}
		if d.as == nil {
			return nil, fmt.Errorf("server %s: %w", ep.ID, errors.Join(errs...))
		}
	case status/100 == 2:
		return nil, &NoOAuthError{Server: ep.ID}
	case status != http.StatusUnauthorized && ch == nil:
		return nil, fmt.Errorf("server %s answered %d %s and publishes no OAuth metadata", ep.ID, status, http.StatusText(status))
	default:
		d.legacy = true
		d.resource = canonicalResource(u)
		as, err := m.serverMetadata(ctx, origin(u), false)
		if err != nil {
			return nil, fmt.Errorf("server %s: %w", ep.ID, err)
		}
		if as == nil {
			as = &serverMetadata{
				AuthorizationEndpoint: origin(u) + "/authorize",
				TokenEndpoint:         origin(u) + "/token",
				RegistrationEndpoint:  origin(u) + "/register",
			}
		}
		d.as = as
	}
	if err := checkServerMetadata(d.as, d.legacy); err != nil {
		return nil, fmt.Errorf("server %s: authorization server: %w", ep.ID, err)
	}
	return d, nil
}

// metadataCandidates are the URLs of the protected resource metadata of
// the server at u, in the order to try them: the resource_metadata of its
// challenge ch (if any), else the well-known URIs of RFC 9728, path-based
// first.
func metadataCandidates(u *url.URL, ch *challenge) []string {
	if ch != nil && ch.params["resource_metadata"] != "" {
		return []string{ch.params["resource_metadata"]}
	}
	var out []string
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		out = append(out, origin(u)+"/.well-known/oauth-protected-resource"+p)
	}
	return append(out, origin(u)+"/.well-known/oauth-protected-resource")
}

// serverMetadata fetches an authorization server's metadata from the
// well-known URIs RFC 8414 and OpenID Connect Discovery give for issuer
// (nil when none answers). With strict, the issuer it names must be issuer.
func (m *Manager) serverMetadata(ctx context.Context, issuer string, strict bool) (*serverMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" || iu.RawQuery != "" || iu.Fragment != "" {
		return nil, fmt.Errorf("authorization server %q is not a valid issuer URL", issuer)
	}
	if err := checkSecureURL(issuer); err != nil {
		return nil, fmt.Errorf("authorization server: %w", err)
	}
	o, p := origin(iu), strings.TrimSuffix(iu.EscapedPath(), "/")
	var candidates []string
	if p != "" {
		candidates = []string{
			o + "/.well-known/oauth-authorization-server" + p,
			o + "/.well-known/openid-configuration" + p,
			o + p + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}
	}
	for _, c := range candidates {
		var as serverMetadata
		found, err := m.getJSON(ctx, c, &as)
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if !found {
			continue
		}
		if strict && strings.TrimSuffix(as.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q", c, as.Issuer, issuer)
		}
		return &as, nil
	}
	return nil, nil
}

// checkServerMetadata checks what a login needs of an authorization server.
func checkServerMetadata(as *serverMetadata, legacy bool) error {
	if as.AuthorizationEndpoint == "" || as.TokenEndpoint == "" {
		return errors.New("its metadata lacks authorization_endpoint or token_endpoint")
	}
	if as.Issuer != "" || !legacy {
		// Metadata was found: PKCE must be offered (MCP authorization,
		// "Authorization Code Protection").
		if !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
			return errors.New("it does not offer PKCE with S256 (code_challenge_methods_supported), which MCP requires")
		}
	}
	for _, e := range []string{as.AuthorizationEndpoint, as.TokenEndpoint, as.RegistrationEndpoint} {
		if e == "" {
			continue
		}
		if err := checkSecureURL(e); err != nil {
			return err
		}
	}
	return nil
}

// getJSON fetches a JSON document. found is false for any answer but 200,
// so that the next candidate location can be tried; err is for failures
// to reach the server or to read what it sent.
func (m *Manager) getJSON(ctx context.Context, u string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("%q is not a valid URL", u)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	resp, err := httpClient.Do(req)
	if err != nil {
		return false, reachError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return false, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize+1))
	if err != nil {
		return false, fmt.Errorf("reading %s: %s", u, describe(err))
	}
	if len(data) > maxMetadataSize {
		return false, fmt.Errorf("%s is larger than %d bytes", u, maxMetadataSize)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s is not valid JSON metadata", u)
	}
	return true, nil
}

// checkResource checks that the resource a server's metadata names is the
// server itself: the same origin, and a path that is the server's or one
// of its parents (RFC 9728 §3.3, RFC 8707).
func checkResource(resource string, server *url.URL) error {
	r, err := url.Parse(resource)
	if err != nil || r.Host == "" {
		return fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	if !strings.EqualFold(origin(r), origin(server)) {
		return fmt.Errorf("it names resource %q, which is not this server (%s)", resource, origin(server))
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(server.EscapedPath(), "/")
	if rp != "" && rp != sp && !strings.HasPrefix(sp, rp+"/") {
		return fmt.Errorf("it names resource %q, which is not this server", resource)
	}
	return nil
}

// canonicalResource is the resource indicator of a server that names none:
// its URL without query and fragment (RFC 8707 §2).
func canonicalResource(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.User = "", "", "", nil
	c.Scheme, c.Host = strings.ToLower(c.Scheme), strings.ToLower(c.Host)
	return c.String()
}

// origin is scheme://host[:port] of u, lowercased.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// checkSecureURL allows https URLs, and http ones on loopback hosts only.
func checkSecureURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%s is neither https nor on this machine: OAuth needs TLS", displayURL(s))
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// displayURL is s without credentials, query and fragment, for messages.
func displayURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(invalid URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// describe says what went wrong with an HTTP request without repeating its
// URL, which may carry a code or a state.
func describe(err error) string { return describeWithout(err, nil) }

// reachError is err, a request's failure, as describe says it; a redirect
// refused (internal/redirect) keeps its type, and so its exit code.
func reachError(err error) error {
	if re, ok := errors.AsType[*redirect.Error](err); ok {
		return re
	}
	return errors.New(describe(err))
}

// describeWithout is describe without secrets, taken out before the text
// is cut so that no part of one is left.
func describeWithout(err error, secrets *redact.Set) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return clip.Runes(secrets.Text(err.Error()), 201)
}
