// Package redact keeps secret values out of what mcp prints and logs. A
// Set holds the values, each with the forms it takes once escaped or
// encoded, and replaces every occurrence of any of them that stands as a
// whole token with Mask in the text, errors and writes that go through it.
// Which values are secret is for its callers to say (manifests.AddSecrets).
package redact

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Mask stands where a secret was.
const Mask = "[redacted]"

// MinLen is the length below which a value is not taken as a secret:
// hiding every "1" or "dev" would garble text and protect nothing.
const MinLen = 4

// Set is a set of secret values. The zero value is an empty set; a nil
// *Set holds nothing and hides nothing. It is safe for concurrent use.
type Set struct {
	mu   sync.RWMutex
	seen map[string]bool
	vals []string
}

// Add adds each value of at least MinLen bytes, and the parts of one that
// is structured (Parts: the fields of JSON, a PEM body and its lines, the
// values of key=value pairs), each with the forms it takes in a URL (query
// and path escaped), in a JSON string, in a Go-quoted string (as slog and
// %q write it) and with its white space run together (as one-line
// messages make it). A part is masked as a secret of its own length is:
// as a whole token when it is short.
func (s *Set) Add(values ...string) {
	var forms []string
	for _, v := range values {
		if len(v) < MinLen {
			continue
		}
		forms = appendForms(forms, v)
		for _, p := range Parts(v) {
			forms = appendForms(forms, p)
		}
	}
	s.addForms(forms)
}

// appendForms appends v and the forms it takes once escaped.
func appendForms(forms []string, v string) []string {
	return append(forms, v, url.QueryEscape(v), url.PathEscape(v), inner(strconv.Quote(v)),
		jsonInner(v, true), jsonInner(v, false), strings.Join(strings.Fields(v), " "))
}

// AddHeader adds an HTTP header value, and the credentials it carries: the
// part after its scheme ("Bearer TOKEN"), and for Basic the decoded
// user:password and the password.
func (s *Set) AddHeader(value string) {
	s.Add(value)
	scheme, cred, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok {
		return
	}
	cred = strings.TrimSpace(cred)
	s.Add(cred)
	if !strings.EqualFold(scheme, "Basic") {
		return
	}
	if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
		s.Add(string(dec))
		if _, pass, ok := strings.Cut(string(dec), ":"); ok {
			s.Add(pass)
		}
	}
}

// AddBasic adds a password and the Basic credentials an HTTP client makes
// of it with user: base64 of user:password, as it is and with both
// form-encoded first (RFC 6749 §2.3.1, as OAuth clients send them).
func (s *Set) AddBasic(user, password string) {
	if len(password) < MinLen {
		return
	}
	s.Add(password)
	s.addForms([]string{
		base64.StdEncoding.EncodeToString([]byte(user + ":" + password)),
		base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(user) + ":" + url.QueryEscape(password))),
	})
}

func (s *Set) addForms(forms []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range forms {
		if len(f) < MinLen || s.seen[f] {
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[f] = true
		s.vals = append(s.vals, f)
	}
}

// inner is a quoted string without its quotes.
func inner(q string) string { return q[1 : len(q)-1] }

// jsonInner is v as encoding/json writes it in a string, without quotes.
func jsonInner(v string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(v)
	return inner(strings.TrimSuffix(b.String(), "\n"))
}

// anywhereLen is the length from which a secret is masked wherever it
// occurs, even inside a longer word: no ordinary word is a secret that
// long, and a credential with letters run into it is still the
// credential.
const anywhereLen = 12

// Text is t with every occurrence of a secret replaced by Mask, where it
// stands as a whole token (see wholeTokens), or anywhere when it is at
// least anywhereLen bytes long: a secret "info" leaves "getaddrinfo" as it
// is. Where secrets overlap or touch (one inside another, one running into
// the next), the whole run becomes one Mask, so no part of any is left.
func (s *Set) Text(t string) string {
	if s == nil {
		return t
	}
	found := s.find(t)
	spans := wholeTokens(t, slices.Clone(found))
	for _, sp := range found {
		if sp.end-sp.start >= anywhereLen {
			spans = append(spans, sp)
		}
	}
	if len(spans) == 0 {
		return t
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	last := 0 // end of what has been written or masked
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(t[last:start])
		b.WriteString(Mask)
		last = end
	}
	b.WriteString(t[last:])
	return b.String()
}

// find is every occurrence in t of every form of every secret.
func (s *Set) find(t string) []span {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var spans []span
	for _, v := range s.vals {
		for i := 0; ; {
			j := strings.Index(t[i:], v)
			if j < 0 {
				break
			}
			spans = append(spans, span{i + j, i + j + len(v)})
			i += j + 1
		}
	}
	return spans
}

// Count is how many occurrences of its secrets t holds, as Text finds
// them (whole tokens or not, overlapping or not), counting no further
// than limit. It allocates nothing: what Text would do costs a few hundred
// bytes an occurrence, and a caller can refuse text that holds too many
// before it does.
func (s *Set) Count(t string, limit int) int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, v := range s.vals {
		for i := 0; n < limit; n++ {
			j := strings.Index(t[i:], v)
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	return n
}

// Error is err with its message passed through Text; errors.Is and
// errors.As still reach err. An error whose message holds no secret is
// returned as it is.
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if r := s.Text(msg); r != msg {
		return &redactedError{msg: r, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Writer returns a writer that passes each write through Text to w. A
// write is taken as whole, so a secret split between two writes is not
// seen: slog's handlers and fmt.Fprintf write a record or a line at once.
func (s *Set) Writer(w io.Writer) io.Writer { return &writer{s: s, w: w} }

type writer struct {
	s *Set
	w io.Writer
}

// Write reports len(p) when all of the redacted text was written.
func (w *writer) Write(p []byte) (int, error) {
	out := w.s.Text(string(p))
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}
