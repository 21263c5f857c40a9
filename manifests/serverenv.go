package manifests

import (
	"maps"
	"runtime"
	"slices"
	"strings"
)

// What a stdio server's environment holds is declared, not inherited
// whole: a small base set taken from the environment it starts in (what
// the official MCP SDKs pass by default, per system, with the locale, the
// temporary directory, proxies and certificate bundles, which a server
// needs to run at all and which name no credential), the host variables
// its entry passes on by name or prefix (passEnv), and its entry's env,
// which wins over both. Nothing else of the host's environment reaches
// it: not a token, not another server's secret, not the terminal's own
// variables.

// posixBase is the base set on every system but Windows. TERM is left
// out: a server's stdio is a pipe, and the value differs between
// terminals (tmux, screen, kitty), which would split their multiplexers.
var posixBase = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "USER",
	"LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
}

// windowsBase is the base set on Windows: the TypeScript SDK's, with
// TMP, PATHEXT, COMSPEC and WINDIR, which a program started through a
// .cmd shim or a shell needs.
var windowsBase = []string{
	"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
	"PATHEXT", "COMSPEC", "WINDIR", "LANG", "LC_*", "TZ",
}

// networkBase is in the base set everywhere: proxies, in both cases, and
// the certificate bundles a proxy that inspects TLS needs.
var networkBase = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// BaseEnv is the base set of this system: names, and prefixes ending in
// "*".
func BaseEnv() []string { return baseEnv(runtime.GOOS) }

func baseEnv(goos string) []string {
	base := posixBase
	if goos == "windows" {
		base = windowsBase
	}
	return append(slices.Clone(base), networkBase...)
}

// envMatch says whether the variable name is one that pattern names: the
// same name, or one that starts with a pattern's prefix ("AWS_*"). On
// Windows names match whatever their case.
func envMatch(goos, pattern, name string) bool {
	fold := goos == "windows"
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		if fold {
			return len(name) >= len(prefix) && strings.EqualFold(name[:len(prefix)], prefix)
		}
		return strings.HasPrefix(name, prefix)
	}
	if fold {
		return strings.EqualFold(pattern, name)
	}
	return pattern == name
}

func matchesAny(goos string, patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return envMatch(goos, p, name) })
}

// ServerEnv is the environment a stdio server of e (expanded) starts with,
// taken from environ (KEY=VALUE pairs): the base set, the variables e
// passes on (PassEnv), then e.Env. It is sorted by name.
func (e Endpoint) ServerEnv(environ []string) []string {
	return e.serverEnv(runtime.GOOS, environ)
}

func (e Endpoint) serverEnv(goos string, environ []string) []string {
	base := baseEnv(goos)
	env := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if matchesAny(goos, base, k) || matchesAny(goos, e.PassEnv, k) {
			env[k] = v
		}
	}
	for k, v := range e.Env {
		for old := range env {
			if goos == "windows" && strings.EqualFold(old, k) {
				delete(env, old)
			}
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// EnvNames says, by name only, where each variable of a stdio server's
// environment comes from: the base set, passEnv, or the entry's env.
type EnvNames struct {
	Base     []string `json:"base"`
	Passed   []string `json:"passed,omitempty"`
	Declared []string `json:"declared,omitempty"`
}

// All is every name, sorted.
func (n EnvNames) All() []string {
	return slices.Sorted(slices.Values(slices.Concat(n.Base, n.Passed, n.Declared)))
}

// ServerEnvNames is the names of ServerEnv(environ) by where they come
// from, which `mcp check` shows: never a value.
func (e Endpoint) ServerEnvNames(environ []string) EnvNames {
	var n EnvNames
	base := BaseEnv()
	for _, kv := range e.ServerEnv(environ) {
		k, _, _ := strings.Cut(kv, "=")
		_, declared := e.Env[k]
		switch {
		case declared:
			n.Declared = append(n.Declared, k)
		case matchesAny(runtime.GOOS, base, k):
			n.Base = append(n.Base, k)
		default:
			n.Passed = append(n.Passed, k)
		}
	}
	return n
}

// Withheld is the names of environ's variables that look like credentials
// (a name such as GITHUB_TOKEN or OPENAI_API_KEY) and that a server of e
// does not get: what a server that fails to start may have needed, as
// mcp passed the whole environment on before. Values are never read.
func (e Endpoint) Withheld(environ []string) []string {
	got := map[string]bool{}
	for _, n := range e.ServerEnvNames(environ).All() {
		got[n] = true
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k != "" && !got[k] && credentialVar(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// credentialVar says whether a variable's name ends the way a credential's
// does (GITHUB_TOKEN, OPENAI_API_KEY, DB_PASSWORD), narrower than
// secretName: TERM_SESSION_ID is nobody's login.
func credentialVar(name string) bool {
	words := nameWords(name)
	if len(words) < 2 {
		return false
	}
	switch words[len(words)-1] {
	case "TOKEN", "KEY", "SECRET", "PASSWORD", "PAT", "CREDENTIALS", "APIKEY":
		return true
	}
	return false
}

// VarNames is the names of the variables e's ${VAR}s read, in any field
// Expand expands, sorted.
func (e Endpoint) VarNames() []string {
	var names []string
	_, _ = e.Expand(func(name string) (string, bool) {
		names = append(names, name)
		return "", true
	})
	slices.Sort(names)
	return slices.Compact(names)
}

// IdentityEnv is what of environ reaches the servers of eps or their
// configuration: every variable of the base set or that an endpoint
// passes on, with its value, and every variable a ${VAR} reads, set or
// not. Two environments that agree on it start the same servers the same
// way; every other variable (a terminal's, a tab's, an SSH login's) is
// left out. Each entry is NAME=VALUE, or NAME alone for a variable that
// is read but not set; the list is sorted.
func IdentityEnv(eps map[string]Endpoint, environ []string) []string {
	return identityEnv(runtime.GOOS, eps, environ)
}

func identityEnv(goos string, eps map[string]Endpoint, environ []string) []string {
	patterns := baseEnv(goos)
	read := map[string]bool{}
	for _, ep := range eps {
		patterns = append(patterns, ep.PassEnv...)
		for _, n := range ep.VarNames() {
			read[n] = true
		}
	}
	set := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" && (read[k] || matchesAny(goos, patterns, k)) {
			set[k] = v
		}
	}
	var out []string
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	for k := range read {
		if _, ok := set[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// validPassEnv says whether s may be an entry of passEnv: a variable name
// ([A-Za-z_][A-Za-z0-9_]*), or a prefix of one followed by "*". A lone
// "*" would pass everything on, which is what passEnv exists to avoid.
func validPassEnv(s string) bool {
	name, _ := strings.CutSuffix(s, "*")
	return validVarName(name)
}
