package upstream

import (
	"net/url"
	"slices"
	"strings"

	"github.com/mcpsh/mcp/manifests"
)

// secretsOf lists the values of ep that must not appear in anything shown
// of the connection (errors, a server's stderr, its error responses): env
// values, header values, the password and query values of its URL and the
// OAuth client secret. Values shorter than 4 characters are left alone.
func secretsOf(ep manifests.Endpoint) []string {
	var s []string
	add := func(v string) {
		if len(v) >= 4 {
			s = append(s, v)
		}
	}
	for _, v := range ep.Env {
		add(v)
	}
	if ep.OAuth != nil {
		add(ep.OAuth.ClientSecret)
	}
	for _, v := range ep.Headers {
		add(v)
		// "Bearer xyz": the token alone must go too.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(tok)
		}
	}
	if u, err := url.Parse(ep.URL); err == nil {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	return s
}

// maxErrorText bounds the message of an error built from what a server sent.
const maxErrorText = 1000

// redactedError is err with secrets removed from its message, and the
// message bounded. Unwrap still reaches err for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := redactText(err.Error(), secrets)
	if len(msg) > maxErrorText {
		msg = strings.ToValidUTF8(msg[:maxErrorText], "") + " …"
	}
	return &redactedError{msg: msg, err: err}
}

// redactText is s with every secret replaced by [redacted], longest first
// (so that a secret inside another goes with it).
func redactText(s string, secrets []string) string {
	if len(secrets) == 0 {
		return s
	}
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	for _, v := range sorted {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}
