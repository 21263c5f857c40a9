package manifests

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// oauthKeys are the keys of an endpoint's oauth object.
var oauthKeys = []string{"clientId", "clientSecret", "scopes", "authMethod", "redirectUri"}

// AuthMethods are the token endpoint authentication methods an OAuth
// client may use.
var AuthMethods = []string{"client_secret_basic", "client_secret_post", "none"}

// oauth checks an endpoint's oauth object. Secrets are never echoed.
func (c *checker) oauth(n *node, field string, lenient bool) *OAuth {
	if n.kind == kNull {
		return nil
	}
	f, ok := c.fields(n, field, oauthKeys, !lenient)
	if !ok {
		return nil
	}
	o := &OAuth{}
	if m := f["clientId"]; m != nil {
		if s, ok := c.str(m.val, field+".clientId"); ok {
			if strings.TrimSpace(s) == "" {
				c.at(m.val, field+".clientId", "", "is empty", "write the client id the authorization server issued, or leave clientId out to register one")
			}
			o.ClientID = s
			c.expansion(m.val.pos(c.file), field+".clientId", s)
		}
	}
	if m := f["clientSecret"]; m != nil {
		if s, ok := c.str(m.val, field+".clientSecret"); ok {
			o.ClientSecret = s
			c.expansion(m.val.pos(c.file), field+".clientSecret", s)
			if f["clientId"] == nil {
				c.at(m.val, field+".clientSecret", "", "is set without clientId", "a secret belongs to a client id: set clientId too")
			}
		}
	}
	if m := f["scopes"]; m != nil {
		scopes, pos, _ := c.strList(m.val, field+".scopes")
		for i, s := range scopes {
			if !validScope(s) {
				c.add(pos[i], field+".scopes", s, "is not a valid scope", `a scope is a word without spaces, quotes or backslashes`)
			}
		}
		o.Scopes = scopes
	}
	if m := f["authMethod"]; m != nil {
		if s, ok := c.str(m.val, field+".authMethod"); ok {
			o.AuthMethod = s
			switch {
			case !validAuthMethod(s):
				c.at(m.val, field+".authMethod", s, "is not a known token endpoint authentication method",
					`authMethod is one of "client_secret_basic", "client_secret_post", "none"`)
			case s == "none" && o.ClientSecret != "":
				c.at(m.val, field+".authMethod", s, "sends no secret, but clientSecret is set", "drop clientSecret, or use client_secret_basic or client_secret_post")
			case s != "none" && f["clientSecret"] == nil:
				c.at(m.val, field+".authMethod", s, "needs clientSecret", `set clientSecret, or use "none" for a public client`)
			}
		}
	}
	if m := f["redirectUri"]; m != nil {
		if s, ok := c.str(m.val, field+".redirectUri"); ok {
			o.RedirectURI = s
			if !ValidLoopbackRedirect(s) {
				c.at(m.val, field+".redirectUri", s, "is not a loopback redirect URI",
					"write http://127.0.0.1:PORT/PATH (or localhost, or [::1]) with the port registered for the client")
			}
		}
	}
	return o
}

func validAuthMethod(s string) bool { return slices.Contains(AuthMethods, s) }

// validScope follows RFC 6749 §3.3: printable ASCII without space, '"' and '\'.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// ValidLoopbackRedirect says whether s is an http URL on a loopback host
// (127.0.0.1, [::1] or localhost) with an explicit port, as a command-line
// client's redirect URI must be (RFC 8252 §7.3).
func ValidLoopbackRedirect(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	host, port := u.Hostname(), u.Port()
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
