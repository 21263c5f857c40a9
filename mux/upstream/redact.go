package upstream

import (
	"strings"

	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// secretsFor is the set a connection to ep redacts with: opts.Secrets, or
// a set of its own, with ep's secrets added (env values, header values,
// URL credentials, the OAuth client secret). The Auth hook adds the
// connection's tokens as it obtains them.
func (o Options) secretsFor(ep manifests.Endpoint) *redact.Set {
	s := o.Secrets
	if s == nil {
		s = new(redact.Set)
	}
	ep.AddSecrets(s)
	return s
}

// maxErrorText bounds the message of an error built from what a server sent.
const maxErrorText = 1000

// boundedError is err with secrets removed from its message, and the
// message bounded. Unwrap still reaches err for errors.Is and errors.As.
type boundedError struct {
	msg string
	err error
}

func (e *boundedError) Error() string { return e.msg }
func (e *boundedError) Unwrap() error { return e.err }

// redact is err without the connection's secrets, its message bounded
// (after the secrets are gone, so that no cut leaves part of one).
func (u *conn) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := u.secret.Text(err.Error())
	if len(msg) > maxErrorText {
		msg = strings.ToValidUTF8(msg[:maxErrorText], "") + " …"
	}
	return &boundedError{msg: msg, err: err}
}
