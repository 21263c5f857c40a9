package auth

import (
	"net/http"
	"strings"
)

// challenge is one authentication challenge of a WWW-Authenticate header
// (RFC 9110 §11.6.1): a scheme and its parameters, names lowercased.
type challenge struct {
	scheme string
	params map[string]string
}

// scopes are the challenge's scopes; any that is not a valid scope
// (RFC 6749 §3.3: printable ASCII but space, '"' and '\') is dropped, as
// scopes end up in messages.
func (c challenge) scopes() []string {
	var out []string
	for _, s := range strings.Fields(c.params["scope"]) {
		if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == '"' || r == '\\' }) < 0 {
			out = append(out, s)
		}
	}
	return out
}

// bearerChallenge returns the Bearer challenge of h, if there is one.
func bearerChallenge(h http.Header) (challenge, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		for _, c := range parseChallenges(v) {
			if strings.EqualFold(c.scheme, "Bearer") {
				return c, true
			}
		}
	}
	return challenge{}, false
}

// parseChallenges parses a WWW-Authenticate value: comma-separated
// elements, each a parameter (name=value, value a token or a quoted
// string) of the current challenge, or a scheme that starts a new one,
// optionally followed by its first parameter or a token68 (ignored).
func parseChallenges(s string) []challenge {
	var out []challenge
	for _, el := range splitElements(s) {
		if name, value, ok := param(el); ok {
			if len(out) > 0 {
				out[len(out)-1].params[name] = value
			}
			continue
		}
		scheme, rest, _ := strings.Cut(el, " ")
		c := challenge{scheme: scheme, params: map[string]string{}}
		if name, value, ok := param(strings.TrimSpace(rest)); ok {
			c.params[name] = value
		}
		out = append(out, c)
	}
	return out
}

// param reads name=value from el; value may be quoted.
func param(el string) (name, value string, ok bool) {
	i := 0
	for i < len(el) && isTChar(el[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	name = el[:i]
	rest := strings.TrimLeft(el[i:], " \t")
	if !strings.HasPrefix(rest, "=") {
		return "", "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	if strings.HasPrefix(rest, `"`) {
		return strings.ToLower(name), unquote(rest), true
	}
	return strings.ToLower(name), rest, true
}

func isTChar(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) < 0
}

// unquote reads the quoted string at the start of s.
func unquote(s string) string {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// splitElements splits s at the commas outside quoted strings and trims
// each element; empty elements are dropped.
func splitElements(s string) []string {
	var out []string
	start, quoted := 0, false
	flush := func(end int) {
		if el := strings.TrimSpace(s[start:end]); el != "" {
			out = append(out, el)
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}
