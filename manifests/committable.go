package manifests

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpsh/mcp/internal/redact"
)

// Moved is one literal credential Committable took out of an entry: where
// it was (env GITHUB_TOKEN, header Authorization, args[3], url) and the
// variable that now stands for it.
type Moved struct {
	Field, Var string
}

// Committable is e as a file meant to be committed may hold it: each
// literal credential (by the rules of AddSecrets: an env value or header
// whose name says so or whose value looks like one, an argument after a
// secret flag, the credentials of a URL) is replaced by a ${VAR}
// reference, and Moved says which. An env value becomes ${ITS_NAME}; any
// other field ${ID_FIELD}, ID being the server id in upper case. Values
// that are already references are kept.
func (e Endpoint) Committable() (Endpoint, []Moved) {
	out := e
	var moved []Moved
	ref := func(field, name string) string {
		v := envVarName(name)
		moved = append(moved, Moved{Field: field, Var: v})
		return "${" + v + "}"
	}
	secret := func(name, v string) bool {
		if strings.Contains(v, "${") {
			return false
		}
		s := &redact.Set{}
		addValue(s, name, v)
		return s.Count(v, 1) > 0
	}
	if len(e.Env) > 0 {
		out.Env = maps.Clone(e.Env)
		for _, name := range slices.Sorted(maps.Keys(e.Env)) {
			if secret(name, e.Env[name]) {
				out.Env[name] = ref("env "+name, name)
			}
		}
	}
	if len(e.Headers) > 0 {
		out.Headers = maps.Clone(e.Headers)
		for _, name := range slices.Sorted(maps.Keys(e.Headers)) {
			v := e.Headers[name]
			if !strings.Contains(v, "${") && (secretHeader(name) || credentialLike(strings.TrimSpace(v)) || credentialLike(lastField(v))) {
				out.Headers[name] = ref("header "+name, e.ID+"_"+name)
			}
		}
	}
	if len(e.Args) > 0 {
		s := &redact.Set{}
		addArgs(s, e.Args)
		out.Args = slices.Clone(e.Args)
		for i, a := range e.Args {
			if !strings.Contains(a, "${") && s.Count(a, 1) > 0 {
				flag, _, inline := strings.Cut(a, "=")
				if inline && strings.HasPrefix(flag, "-") {
					out.Args[i] = flag + "=" + ref(fmt.Sprintf("args[%d]", i), e.ID+"_"+strings.TrimLeft(flag, "-"))
				} else {
					out.Args[i] = ref(fmt.Sprintf("args[%d]", i), fmt.Sprintf("%s_ARG%d", e.ID, i))
				}
			}
		}
	}
	if e.URL != "" && !strings.Contains(e.URL, "${") {
		s := &redact.Set{}
		urlSecrets(s, e.URL)
		if s.Count(e.URL, 1) > 0 {
			out.URL = ref("url", e.ID+"_URL")
		}
	}
	if e.OAuth != nil && e.OAuth.ClientSecret != "" && !strings.Contains(e.OAuth.ClientSecret, "${") {
		o := *e.OAuth
		o.ClientSecret = ref("oauth.clientSecret", e.ID+"_CLIENT_SECRET")
		out.OAuth = &o
	}
	return out, moved
}

var notVarChar = regexp.MustCompile(`[^A-Z0-9_]+`)

// envVarName is name as a variable name: upper case, other characters
// _, not starting with a digit.
func envVarName(name string) string {
	v := strings.Trim(notVarChar.ReplaceAllString(strings.ToUpper(name), "_"), "_")
	if v == "" || v[0] >= '0' && v[0] <= '9' {
		v = "MCP_" + v
	}
	return v
}
