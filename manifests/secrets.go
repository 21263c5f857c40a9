package manifests

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"unicode"

	"github.com/mcpsh/mcp/internal/redact"
)

// AddSecrets adds to s the values of e, an expanded endpoint, that must
// never be shown:
//   - an env value whose variable's name says it is secret (secretName)
//     unless it is a switch (true, disabled), or that looks like a
//     credential (credentialLike), and the user info and query values of
//     an env value that is a URL;
//   - every header value, and the credentials in it, but those of the
//     headers that carry none (plainHeaders), which count only when they
//     look like a credential;
//   - the user info and query values of its URL (and the Basic
//     credentials an HTTP client makes of the user info);
//   - its OAuth client secret.
//
// Configuration (LOG_LEVEL=info, NODE_ENV=production, PATH) is not secret,
// so that it is never taken out of what a server says.
func (e Endpoint) AddSecrets(s *redact.Set) {
	for name, v := range e.Env {
		addValue(s, name, v)
	}
	for name, v := range e.Headers {
		if plainHeaders[http.CanonicalHeaderKey(name)] {
			if credentialLike(v) {
				s.Add(v)
			}
			continue
		}
		s.AddHeader(v)
	}
	addURL(s, e.URL)
	if e.OAuth != nil {
		s.AddBasic(e.OAuth.ClientID, e.OAuth.ClientSecret)
	}
}

// ExpandSecrets is Expand that also adds to s what must never be shown of
// the result: the value of each ${VAR} it expands from the environment by
// the rule of an env value (the variable's name, the value's shape, the
// credentials of a URL), and the secrets of the expanded endpoint
// (AddSecrets).
func (e Endpoint) ExpandSecrets(lookup func(string) (string, bool), s *redact.Set) (Endpoint, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	out, err := e.Expand(func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok {
			addValue(s, name, v)
		}
		return v, ok
	})
	if err != nil {
		return out, err
	}
	out.AddSecrets(s)
	return out, nil
}

// switches are values that turn something on or off: never a secret,
// whatever the variable is called (AUTH_ENABLED=true).
var switches = map[string]bool{"true": true, "false": true, "enabled": true, "disabled": true, "none": true, "null": true}

// addValue adds the value v of the variable name when it is secret, and
// the credentials it carries when it is a URL.
func addValue(s *redact.Set, name, v string) {
	if secretName(name) && !switches[strings.ToLower(v)] || credentialLike(v) {
		s.Add(v)
	}
	if strings.Contains(v, "://") {
		addURL(s, v)
	}
}

// addURL adds the user info and query values of raw when it is a URL, and
// the Basic credentials an HTTP client makes of the user info.
func addURL(s *redact.Set, raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		s.Add(u.User.Username(), pass)
		s.AddBasic(u.User.Username(), pass)
	}
	for _, vs := range u.Query() {
		s.Add(vs...)
	}
}

// secretWords are the parts of a variable's name that say its value is
// secret. A name is compared in upper case without its _ and -, so that
// API_KEY, apiKey and PGPASSWORD all say so.
var secretWords = []string{
	"KEY", "TOKEN", "SECRET", "PASS", "PWD", "AUTH", "CRED", "COOKIE", "SESSION",
	"PRIVATE", "SIGNATURE", "SALT", "DSN", "JWT", "BEARER", "CONNECTIONSTRING",
}

// notSecretNames are names that hold a secret word and never a secret: the
// working directories a shell sets.
var notSecretNames = map[string]bool{"PWD": true, "OLDPWD": true}

// secretName says the name of a variable says its value is secret.
func secretName(name string) bool {
	if notSecretNames[name] {
		return false
	}
	n := strings.ToUpper(strings.NewReplacer("_", "", "-", "").Replace(name))
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// plainHeaders are the headers known to carry no credential.
var plainHeaders = map[string]bool{
	"Accept": true, "Accept-Charset": true, "Accept-Encoding": true, "Accept-Language": true,
	"Cache-Control": true, "Connection": true, "Content-Language": true, "Content-Type": true,
	"Mcp-Protocol-Version": true, "Pragma": true, "User-Agent": true,
}

// minCredential is the length from which a value can look like a
// credential, and minRun that of the run of letters and digits it must
// hold.
const minCredential, minRun = 16, 8

// credentialLike says v looks like a credential (an API key, a token, a
// JWT, base64 or hex of a key): at least minCredential characters without
// white space, holding a run of at least minRun letters and digits that
// mixes letters with digits or lower with upper case, and not shaped like
// a path, a list of paths, a URL or a host name. Words, numbers, dates,
// versions and names such as "claude-3-5-sonnet-20241022" do not.
func credentialLike(v string) bool {
	if len(v) < minCredential || strings.ContainsFunc(v, unicode.IsSpace) ||
		strings.ContainsAny(v[:1], "/~.") || strings.Contains(v, ":/") || strings.ContainsRune(v, '\\') ||
		hostName(v) {
		return false
	}
	for _, run := range strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(run) < minRun {
			continue
		}
		var lower, upper, digit bool
		for _, r := range run {
			lower = lower || unicode.IsLower(r)
			upper = upper || unicode.IsUpper(r)
			digit = digit || unicode.IsDigit(r)
		}
		if (lower || upper) && digit || lower && upper {
			return true
		}
	}
	return false
}

// hostName says v is a host name in lower case, with a port or not: labels
// of letters, digits and hyphens, the last of letters only.
func hostName(v string) bool {
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		if strings.Trim(v[i+1:], "0123456789") != "" || i == len(v)-1 {
			return false
		}
		v = v[:i]
	}
	labels := strings.Split(v, ".")
	if len(labels) < 2 {
		return false
	}
	for i, l := range labels {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			letter := 'a' <= c && c <= 'z'
			if !letter && (i == len(labels)-1 || c != '-' && (c < '0' || c > '9')) {
				return false
			}
		}
	}
	return true
}
