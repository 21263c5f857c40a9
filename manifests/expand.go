package manifests

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Expand returns a copy of e with ${VAR} and ${VAR:-default} replaced in
// Command, Args, Env values, Cwd, URL, Headers values (never in keys) and
// OAuth's ClientID and ClientSecret.
// lookup finds a variable; nil means os.LookupEnv.
//
// The rules:
//   - ${VAR} is the variable's value; set but empty is empty. Unset is a
//     *MissingVarError naming the variable, the server and the field.
//   - ${VAR:-default} is the default when VAR is unset or empty. The default
//     is literal text up to the first "}" and may not hold "${".
//   - VAR is [A-Za-z_][A-Za-z0-9_]*; anything else after "${", or a "${"
//     without its "}", is an *Error.
//   - Only "${" starts an expansion: a "$" not followed by "{" stays as it is,
//     and "$$" stays "$$" (so "$${X}" is left alone too). Commands run by a
//     shell keep their own "$" syntax.
//
// Then paths are resolved: a relative Cwd against Dir; a relative Command
// holding a path separator ("./server", "bin/server") against Dir, while a
// bare name ("npx") is left for a PATH lookup; and a stdio endpoint without
// Cwd gets Dir. Errors never hold a value.
func (e Endpoint) Expand(lookup func(string) (string, bool)) (Endpoint, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	out := e
	var firstErr error
	x := func(field, s string) string {
		if firstErr != nil {
			return s
		}
		r, err := expandString(s, lookup)
		if err != nil {
			firstErr = e.expandErr(field, err)
			return s
		}
		return r
	}
	out.Command = x("command", e.Command)
	if e.Args != nil {
		out.Args = make([]string, len(e.Args))
		for i, a := range e.Args {
			out.Args[i] = x(fmt.Sprintf("args[%d]", i), a)
		}
	}
	out.Env = expandMap(e.Env, "env", x)
	out.Cwd = x("cwd", e.Cwd)
	out.URL = x("url", e.URL)
	out.Headers = expandMap(e.Headers, "headers", x)
	if e.OAuth != nil {
		o := *e.OAuth
		o.Scopes = slices.Clone(o.Scopes)
		o.ClientID = x("oauth.clientId", o.ClientID)
		o.ClientSecret = x("oauth.clientSecret", o.ClientSecret)
		out.OAuth = &o
	}
	if firstErr != nil {
		return Endpoint{}, firstErr
	}

	if out.Cwd != "" && !filepath.IsAbs(out.Cwd) && out.Dir != "" {
		out.Cwd = filepath.Join(out.Dir, out.Cwd)
	}
	if out.Command != "" && !filepath.IsAbs(out.Command) && out.Dir != "" &&
		strings.ContainsAny(out.Command, "/"+string(filepath.Separator)) {
		out.Command = filepath.Join(out.Dir, out.Command)
	}
	if out.Command != "" && out.URL == "" && out.Cwd == "" {
		out.Cwd = out.Dir
	}
	return out, nil
}

// expandMap expands the values of m in key order, so the first error is
// always the same one.
func expandMap(m map[string]string, field string, x func(field, s string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out[k] = x(field+"."+k, m[k])
	}
	return out
}

func (e Endpoint) expandErr(field string, err error) error {
	var mv *missingVar
	if errors.As(err, &mv) {
		return &MissingVarError{Server: e.ID, Var: mv.name, Field: field, Pos: e.Pos}
	}
	return &Error{Pos: e.Pos, Field: e.ID + "." + field, Msg: "has a malformed ${...}",
		Hint: "write ${NAME} or ${NAME:-default}, with NAME from A-Z, a-z, 0-9 and _"}
}

type missingVar struct{ name string }

func (m *missingVar) Error() string { return "variable " + m.name + " is not set" }

var errMalformed = errors.New("malformed ${...}")

// expandString applies the rules documented on Expand to one string.
func expandString(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] != '$':
			b.WriteByte(s[i])
			i++
			continue
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteString("$$")
			i += 2
			continue
		case !strings.HasPrefix(s[i:], "${"):
			b.WriteByte('$')
			i++
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", errMalformed
		}
		body := s[i+2 : i+2+end]
		name, def, hasDef := strings.Cut(body, ":-")
		if !validVarName(name) || strings.Contains(def, "${") {
			return "", errMalformed
		}
		v, ok := lookup(name)
		switch {
		case hasDef && (!ok || v == ""):
			v = def
		case !ok:
			return "", &missingVar{name: name}
		}
		b.WriteString(v)
		i += 2 + end + 1
	}
	return b.String(), nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
