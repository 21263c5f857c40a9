// Package explain says what an error means to a person: the one-line
// summary of why a server cannot be used (a column of `mcp list`, a line
// of a session's guide), the line of a command that needs a login, and the
// hint that follows an error line.
package explain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// Hint is the advice, if any, that goes with err: a command to run or a
// setting to change. The exit code says what kind of failure it is.
func Hint(err error) string {
	var (
		badArg      *catalog.ArgError
		badArgs     *catalog.InvalidArgsError
		unknown     *catalog.UnknownArgsError
		noSession   *session.NotFoundError
		noEP        *mux.NoEndpointError
		missing     *manifests.MissingVarError
		noClient    *auth.NoClientError
		jsLimit     *script.LimitError
		untrusted   *manifests.UntrustedError
		unreachable *mux.UnreachableError
		notAdmitted *mux.NotAdmittedError
		timedOut    *upstream.TimeoutError
		program     *script.ProgramError
	)
	switch exit.Code(err) {
	case exit.Usage:
		switch {
		case errors.As(err, &unknown):
			return unknownArgsHint(unknown)
		case errors.As(err, &badArg) && badArg.Try != "":
			return argHint(badArg)
		case errors.As(err, &badArgs) && badArgs.Signature != "":
			sig := badArgs.Signature
			return "the tool's signature is " + sig + "; `mcp list " + strings.SplitN(sig, "(", 2)[0] + " --schema` shows the schema"
		case errors.As(err, &noSession):
			return "`mcp session list`, outside any session, shows the running ones; `mcp session start` starts one"
		case errors.As(err, &unreachable):
			return "run session start with TMPDIR set to a directory every user may pass through, such as /tmp"
		case errors.As(err, &notAdmitted) && notAdmitted.Session != "":
			return "the user who started the session can start one for this user: mcp session start --agent NAME --user " + notAdmitted.User()
		case errors.As(err, &program) && program.JSONText != "":
			return program.JSONText + " resolved to its text, a string that holds JSON; mcp.json(result) makes it the value"
		}
	case exit.NotAvailable:
		var na *catalog.NotAvailableError
		if errors.As(err, &na) && !na.Session {
			return "`mcp search WORDS` and `mcp list` show what you can use here"
		}
		return "`mcp search WORDS` and `mcp list` show what this session can use"
	case exit.Config:
		switch {
		case errors.As(err, &untrusted):
			return untrustedHint(untrusted)
		case errors.As(err, &noEP):
			return "say where it lives in a manifest named by package.json, or in .pi/mcp.local.json"
		case errors.As(err, &missing):
			return "export the variable, or give a default with ${VAR:-default}"
		case errors.As(err, &noClient):
			return "register a client with the authorization server and set oauth.clientId (and clientSecret) for " + noClient.Server + " in .pi/mcp.local.json"
		}
	case exit.Upstream:
		switch {
		case errors.As(err, &jsLimit) && jsLimit.Kind == "timeout":
			return "raise --timeout if the program needs longer"
		case errors.As(err, &timedOut) && timedOut.Starting:
			return "raise --timeout: a server's start can take longer than its calls, which reuse it once it runs"
		case errors.Is(err, context.DeadlineExceeded):
			return "raise --timeout if the tool needs longer"
		}
		var ue *upstream.UnavailableError
		if errors.As(err, &ue) && len(ue.Withheld) > 0 {
			return withheldHint(ue)
		}
	}
	return ""
}

// withheldHint names the host variables a server that failed to start
// did not get, and how to pass one: servers get only a base set and what
// their entry declares, where they used to inherit everything.
func withheldHint(ue *upstream.UnavailableError) string {
	names := ue.Withheld
	// One the server named on stderr is the one it wants.
	for _, n := range names {
		if strings.Contains(ue.Stderr, n) {
			names = []string{n}
			break
		}
	}
	shown := names
	if len(shown) > 3 {
		shown = shown[:3]
	}
	list := strings.Join(shown, ", ")
	if len(names) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return fmt.Sprintf(`servers get only a base environment and what their entry declares: %s did not get %s; pass one with "env": {"%s": "${%s}"} or "passEnv": ["%s"] in its entry`,
		ue.Server, list, names[0], names[0], names[0])
}

// unknownArgsHint gives the tool's signature, and --allow-unknown only for
// the keys that are no likely typo of a declared one: a typo is to be
// fixed, not sent.
func unknownArgsHint(e *catalog.UnknownArgsError) string {
	var far []string
	for _, k := range e.Keys {
		if _, near := e.Suggest[k]; !near {
			far = append(far, clip.Runes(k, 41))
		}
	}
	var parts []string
	if e.Signature != "" {
		parts = append(parts, "the tool's signature is "+e.Signature)
	}
	switch {
	case len(far) == len(e.Keys):
		parts = append(parts, "--allow-unknown sends "+words.Plural(len(far), "it", "them")+" anyway")
	case len(far) > 0:
		parts = append(parts, "--allow-unknown sends "+strings.Join(far, ", ")+" anyway")
	}
	return strings.Join(parts, "; ")
}

// argHint names the form of an argument that works: key=value for a bare
// word, a value of the property's type for one that is not.
func argHint(e *catalog.ArgError) string {
	what := map[string]string{"integer": "an integer", "number": "a number", "boolean": "true or false"}[e.Want]
	if what == "" {
		return "arguments are named: write " + e.Try
	}
	return fmt.Sprintf("%s takes %s, such as %s", e.Arg, what, e.Try)
}

// untrustedHint says how to let a server of an untrusted directory start.
func untrustedHint(e *manifests.UntrustedError) string {
	if e.Unsafe != "" {
		return "mcp trusts only files that are yours or root's and that nobody else can write, in directories that nobody else can write or that are sticky, as /tmp is"
	}
	cmd := "`" + manifests.TrustCommand(e.Dir) + "`"
	if _, inSession := os.LookupEnv(session.EnvVar); inSession {
		return "outside the session, run " + cmd + " after reading its files"
	}
	return "run " + cmd + " after reading its files, or add --trust to let it start for this command only"
}

// MaxSummary bounds Summary's line, in characters.
const MaxSummary = 120

// Summary says in one short line why a server cannot be used, for a
// column of one line per server (`mcp list`). It starts with the kind of
// failure ("needs a login", "unavailable", "timed out", "not configured",
// ...) and says what to do where that is one command. It is built from
// typed errors and from messages mux has already redacted, and it is cut
// to MaxSummary characters, so it holds no secret and no wrapped chain.
func Summary(err error) string {
	var login *auth.LoginRequiredError
	// The innermost error with a Summary says most: a cause says more
	// than what wraps it.
	s, ok := exit.Innermost[interface{ Summary() string }](err)
	switch {
	case err == nil:
		return ""
	case ok:
		line := s.Summary()
		if _, inSession := os.LookupEnv(session.EnvVar); inSession && errors.As(err, &login) {
			line += " outside the session"
		}
		return clip.Runes(line, MaxSummary)
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return clip.Runes(clip.Error(err), MaxSummary)
}

// LoginRequiredLine is the one line a command that needs a login fails
// with: the server, why, and what to run (outside the session, since a
// session refuses `mcp auth`). err is the whole error, e its cause.
func LoginRequiredLine(err error, e *auth.LoginRequiredError) string {
	prefix, where := "", ""
	if _, inSession := os.LookupEnv(session.EnvVar); inSession {
		where = " outside the session"
	}
	var bind *mux.BindError
	if errors.As(err, &bind) {
		prefix = "session not started: "
	}
	return fmt.Sprintf("%s%s: run `%s`%s", prefix, e.Error(), e.Command(), where)
}
