package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpsh/mcp/catalog"
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

// errSecretInJSON is why a tool whose JSON holds a secret that cannot be
// taken out is not offered.
var errSecretInJSON = errors.New("its definition holds a secret of the recipe that cannot be taken out of it")

// redactJSON is raw, a JSON value the server sent, without the secrets
// text takes out. Each string (keys included) is taken out as it reads
// decoded, so that no escape hides a secret, and each number or other
// literal that is one becomes the string Mask; what holds none keeps its
// bytes, so keys stay in order and the JSON stays as the server wrote it.
// JSON in which text still finds a secret after that (one that runs
// across strings) is refused with errSecretInJSON.
func redactJSON(raw json.RawMessage, text func(string) string) (json.RawMessage, error) {
	if !bytes.ContainsRune(raw, '\\') && text(string(raw)) == string(raw) {
		// Without escapes every string reads as its bytes: nothing to take out.
		return raw, nil
	}
	v, err := hujson.Parse(raw)
	if err != nil {
		return nil, err
	}
	for item := range v.All() {
		lit, ok := item.Value.(hujson.Literal)
		if !ok {
			continue
		}
		s := lit.String() // a string decoded; another literal as it is
		if r := text(s); r != s {
			item.Value = hujson.String(r)
		}
	}
	out := v.Pack()
	if text(string(out)) != string(out) {
		return nil, errSecretInJSON
	}
	return out, nil
}

// decodeTool is the tool the server described in raw, without the
// connection's secrets in its raw JSON and so in any field decoded from
// it. A tool whose JSON cannot be rid of them is not offered, with a
// warning naming it.
func (u *conn) decodeTool(raw json.RawMessage) (catalog.Tool, bool) {
	clean, err := redactJSON(raw, u.secret.Text)
	if errors.Is(err, errSecretInJSON) {
		if t, derr := catalog.DecodeTool(u.server, raw); derr == nil {
			u.warnTool(t.Name, err)
		}
	}
	var t catalog.Tool
	if err == nil {
		t, err = catalog.DecodeTool(u.server, clean)
	}
	if err != nil {
		u.log.Warn("skipping a tool the server described badly", "err", err)
		return catalog.Tool{}, false
	}
	return u.boundTool(t)
}
