package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/jsonscan"
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

// maxSecretsInJSON bounds the occurrences of secrets redactJSON takes out
// of one tool's JSON, in each of its three readings of it (all of it as
// written, its literals decoded, all of it once redacted): no real tool
// names the recipe's secrets that often, and each costs a few hundred
// bytes to take out.
const maxSecretsInJSON = 10000

// errSecretsInJSON is why a tool whose JSON holds secrets more often
// than that is not offered.
var errSecretsInJSON = fmt.Errorf("its definition holds the recipe's secrets more than %d times", maxSecretsInJSON)

// redactJSON is raw, a JSON value the server sent, without the secrets
// the set takes out. Each string (keys included) is taken out as it reads
// decoded, so that no escape hides a secret, and each number or other
// literal that is one becomes the string Mask; what holds none keeps its
// bytes, so keys stay in order and the JSON stays as the server wrote it.
// JSON in which the set still finds a secret after that (one that runs
// across strings) is refused with errSecretInJSON. It reads raw in place,
// a literal at a time (jsonscan), and counts the secrets before it takes
// them out (errSecretsInJSON past maxSecretsInJSON), so that it costs a
// bounded multiple of raw's size whatever its shape.
func redactJSON(raw json.RawMessage, secrets *redact.Set) (json.RawMessage, error) {
	if !bytes.ContainsRune(raw, '\\') {
		// Without escapes every string reads as its bytes: nothing to take
		// out unless the set takes something out of all of it.
		all := string(raw)
		n := secrets.Count(all, maxSecretsInJSON+1)
		if n > maxSecretsInJSON {
			return nil, errSecretsInJSON
		}
		if n == 0 || secrets.Text(all) == all {
			return raw, nil
		}
	}
	if !json.Valid(raw) {
		return nil, errNotJSON
	}
	out, err := redactLiterals(raw, secrets)
	if err != nil {
		return nil, err
	}
	all := string(out)
	switch n := secrets.Count(all, maxSecretsInJSON+1); {
	case n > maxSecretsInJSON:
		return nil, errSecretsInJSON
	case n > 0 && secrets.Text(all) != all:
		return nil, errSecretInJSON
	}
	return out, nil
}

// redactLiterals is raw with each literal that holds a secret decoded,
// redacted and written again: raw itself when none does.
func redactLiterals(raw json.RawMessage, secrets *redact.Set) (json.RawMessage, error) {
	var out []byte // raw up to last, redacted; nil while nothing was
	last, budget := 0, maxSecretsInJSON
	for start, end := range jsonscan.Literals(raw) {
		s, ok := jsonscan.Unquote(raw[start:end])
		if !ok {
			s = string(raw[start:end]) // a number, true, false or null as it is
		}
		n := secrets.Count(s, budget+1)
		if budget -= n; budget < 0 {
			return nil, errSecretsInJSON
		}
		if n == 0 {
			continue
		}
		if r := secrets.Text(s); r != s {
			if out == nil {
				out = make([]byte, 0, len(raw))
			}
			out = append(append(out, raw[last:start]...), hujson.String(r)...)
			last = end
		}
	}
	if out == nil {
		return raw, nil
	}
	return append(out, raw[last:]...), nil
}

var errNotJSON = errors.New("it is not JSON")

// decodeTool is the tool the server described in raw, without the
// connection's secrets in its raw JSON and so in any field decoded from
// it. A tool whose JSON cannot be rid of them is not offered, with a
// warning naming it.
func (u *conn) decodeTool(raw json.RawMessage) (catalog.Tool, bool) {
	clean, err := redactJSON(raw, u.secret)
	if errors.Is(err, errSecretInJSON) || errors.Is(err, errSecretsInJSON) {
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
