package manifests

import (
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpsh/mcp/internal/redact"
)

// AddSecrets adds to s the values of e, an expanded endpoint, that must
// never be shown:
//   - an env value whose variable's name says it is secret (secretName)
//     unless it is a switch (true, disabled), that looks like a
//     credential (credentialLike) or that holds a private key
//     (holdsPrivateKey), and the credentials of an env value that is a
//     URL (urlSecrets); the set takes the parts of one that is structured
//     too (redact.Parts);
//   - a header value, and the credentials in it, when the header's name
//     says it carries one (Authorization, Cookie, X-Api-Key: secretName)
//     or the value looks like a credential;
//   - an argument that looks like a credential, or that follows a flag
//     whose name says it is secret (--api-key VALUE, --token=VALUE);
//   - the credentials of its URL;
//   - its OAuth client secret.
//
// Configuration (LOG_LEVEL=info, NODE_ENV=production, PATH, X-Region:
// europe, ?format=json) is not secret, so that it is never taken out of
// what a server says.
func (e Endpoint) AddSecrets(s *redact.Set) {
	for name, v := range e.Env {
		addValue(s, name, v)
	}
	for name, v := range e.Headers {
		if secretHeader(name) || credentialLike(strings.TrimSpace(v)) || credentialLike(lastField(v)) {
			s.AddHeader(v)
		}
	}
	addArgs(s, e.Args)
	urlSecrets(s, e.URL)
	if e.OAuth != nil {
		s.AddBasic(e.OAuth.ClientID, e.OAuth.ClientSecret)
	}
}

// lastField is the last word of a header value: the credential of
// "Bearer TOKEN".
func lastField(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// secretHeader says a header's name says it carries a credential.
func secretHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization", "Cookie":
		return true
	}
	return secretName(name)
}

// addArgs adds the arguments that look like credentials, and the value of
// each flag whose name says it is secret.
func addArgs(s *redact.Set, args []string) {
	for i, a := range args {
		flag, value, inline := strings.Cut(a, "=")
		isFlag := strings.HasPrefix(flag, "-")
		switch {
		case isFlag && inline:
			addValue(s, strings.TrimLeft(flag, "-"), value)
		case isFlag && secretName(strings.TrimLeft(flag, "-")) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			s.Add(args[i+1])
		default:
			addValue(s, "", a)
		}
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
	// What a stdio server gets of the host's environment (a proxy's
	// credentials, a variable passEnv names) by the same rule.
	if out.Command != "" {
		for _, kv := range out.serverEnv(runtime.GOOS, os.Environ()) {
			name, _, _ := strings.Cut(kv, "=")
			if _, declared := out.Env[name]; declared {
				continue
			}
			if v, ok := lookup(name); ok {
				addValue(s, name, v)
			}
		}
	}
	return out, nil
}

// switches are values that turn something on or off: never a secret,
// whatever the variable is called (AUTH_ENABLED=true).
var switches = map[string]bool{"true": true, "false": true, "enabled": true, "disabled": true, "none": true, "null": true}

// addValue adds the value v of the variable name when it is secret, and
// the credentials it carries when it is a URL.
func addValue(s *redact.Set, name, v string) {
	if secretName(name) && !switches[strings.ToLower(v)] || credentialLike(v) || holdsPrivateKey(v) {
		s.Add(v)
	}
	if strings.Contains(v, "://") {
		urlSecrets(s, v)
	}
}

// holdsPrivateKey says v holds a PEM private key (PRIVATE KEY, RSA
// PRIVATE KEY, OPENSSH PRIVATE KEY, ...), as a credential file does: a
// secret whatever its variable is called.
func holdsPrivateKey(v string) bool {
	return strings.Contains(v, "-----BEGIN ") && strings.Contains(v, "PRIVATE KEY-----")
}

// urlSecrets adds what of raw, when it is a URL, is a credential: the
// password of its user info (and the Basic credentials an HTTP client
// makes of it), the values of its query whose names say they are secret
// or that look like credentials, and the segments of its path that look
// like credentials (the key of a webhook URL). The user name, the host and
// ordinary query values are not secrets.
func urlSecrets(s *redact.Set, raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return
	}
	if u.User != nil {
		if pass, ok := u.User.Password(); ok {
			s.Add(pass)
			s.AddBasic(u.User.Username(), pass)
		} else {
			addValue(s, "", u.User.Username()) // a token given as the user name
		}
	}
	for name, vs := range u.Query() {
		for _, v := range vs {
			addValue(s, name, v)
		}
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if credentialLike(seg) {
			s.Add(seg)
		}
	}
}

// Words of a variable's name that say its value is secret. A name is split
// into its words (at _, -, ., and where lower case meets upper case) and
// compared in upper case: anywhereWords count anywhere in it, run
// together or not (PGPASSWORD, apiKey, GITHUB_TOKEN); wordWords only as a
// word of their own (DB_PASS, MYSQL_ROOT_PW, not BYPASS or COMPASS); and
// lastWords only as its last word (API_KEY, GITHUB_AUTH, SESSION, not
// KEYBOARD_LAYOUT, AUTH_PROVIDER or SESSION_TTL).
var (
	anywhereWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
		"APIKEY", "ACCESSKEY", "PRIVATEKEY", "SESSIONID", "COOKIE", "SIGNATURE", "BEARER", "JWT", "CONNECTIONSTRING"}
	wordWords = []string{"PASS", "PW", "PWD", "CRED", "CREDS", "DSN", "SALT", "PIN", "PRIVATE"}
	lastWords = []string{"KEY", "AUTH", "SESSION"}
)

// notSecretNames are names that hold a secret word and never a secret: the
// working directories a shell sets.
var notSecretNames = map[string]bool{"PWD": true, "OLDPWD": true}

// secretName says the name of a variable (or a header, a query value or a
// flag) says its value is secret.
func secretName(name string) bool {
	if notSecretNames[name] {
		return false
	}
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	joined := strings.Join(words, "")
	for _, w := range anywhereWords {
		if strings.Contains(joined, w) {
			return true
		}
	}
	for _, w := range words {
		if slices.Contains(wordWords, w) {
			return true
		}
	}
	return slices.Contains(lastWords, words[len(words)-1])
}

// nameWords splits a name into its words, in upper case: at anything but a
// letter or digit, and where a lower-case letter meets an upper-case one
// (apiKey: API, KEY).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToUpper(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r)
	}
	flush()
	return words
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
