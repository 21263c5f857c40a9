package manifests

import (
	"net/url"
	"os"

	"github.com/mcpsh/mcp/internal/redact"
)

// AddSecrets adds to s the values of e, an expanded endpoint, that must
// never be shown: its env values, its header values (and the credentials
// in them), the user info and query values of its URL (and the Basic
// credentials an HTTP client makes of the user info), and its OAuth
// client secret.
func (e Endpoint) AddSecrets(s *redact.Set) {
	for _, v := range e.Env {
		s.Add(v)
	}
	for _, v := range e.Headers {
		s.AddHeader(v)
	}
	if u, err := url.Parse(e.URL); err == nil {
		if u.User != nil {
			pass, _ := u.User.Password()
			s.Add(u.User.Username(), pass)
			s.AddBasic(u.User.Username(), pass)
		}
		for _, vs := range u.Query() {
			s.Add(vs...)
		}
	}
	if e.OAuth != nil {
		s.AddBasic(e.OAuth.ClientID, e.OAuth.ClientSecret)
	}
}

// ExpandSecrets is Expand that also adds to s what must never be shown of
// the result: the value of every ${VAR} it expands, which came from the
// environment, and the secrets of the expanded endpoint (AddSecrets).
func (e Endpoint) ExpandSecrets(lookup func(string) (string, bool), s *redact.Set) (Endpoint, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	out, err := e.Expand(func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok {
			s.Add(v)
		}
		return v, ok
	})
	if err != nil {
		return out, err
	}
	out.AddSecrets(s)
	return out, nil
}
