package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// alreadyReported wraps an error whose details were printed already; only
// its exit code is still to be decided.
type alreadyReported struct{ err error }

func (e *alreadyReported) Error() string { return e.err.Error() }
func (e *alreadyReported) Unwrap() error { return e.err }

// report prints err in mcp's voice and returns the exit code.
func report(w io.Writer, err error) int {
	if err == nil {
		return exit.OK
	}
	var done *alreadyReported
	var tool *toolError
	var bad *invalidConfig
	var login *auth.LoginRequiredError
	switch {
	case errors.As(err, &done):
	case errors.As(err, &tool):
		fmt.Fprintf(w, "mcp: error: %s\n", tool.Error())
	case errors.As(err, &login):
		// One line: the server, and the command to run.
		fmt.Fprintf(w, "mcp: error: %s\n", loginRequiredLine(err, login))
	case errors.As(err, &bad):
		// `mcp check` printed each problem.
	default:
		var errs manifests.Errors
		if errors.As(err, &errs) {
			for _, e := range errs {
				fmt.Fprintf(w, "mcp: error: %s\n", e.Error())
			}
		} else {
			fmt.Fprintf(w, "mcp: error: %s\n", oneLine(err))
		}
	}
	var ue *upstream.UnavailableError
	if errors.As(err, &ue) && strings.TrimSpace(ue.Stderr) != "" {
		fmt.Fprintf(w, "mcp: %s wrote to stderr before it stopped:\n", ue.Server)
		for _, line := range strings.Split(strings.TrimRight(ue.Stderr, "\n"), "\n") {
			fmt.Fprintf(w, "  | %s\n", line)
		}
	}
	if h := hint(err); h != "" {
		fmt.Fprintf(w, "mcp: hint: %s\n", h)
	}
	return exit.Code(err)
}

// hint is the advice, if any, that goes with err: a command to run or a
// setting to change. The exit code says what kind of failure it is.
func hint(err error) string {
	var own interface{ advice() string }
	if errors.As(err, &own) {
		return own.advice()
	}
	var (
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
	)
	switch exit.Code(err) {
	case exit.Usage:
		switch {
		case errors.As(err, &unknown):
			return unknownArgsHint(unknown)
		case errors.As(err, &badArgs) && badArgs.Signature != "":
			sig := badArgs.Signature
			return "the tool's signature is " + sig + "; `mcp list " + strings.SplitN(sig, "(", 2)[0] + " --schema` shows the schema"
		case errors.As(err, &noSession):
			return "`mcp session list`, outside any session, shows the running ones; `mcp session start` starts one"
		case errors.As(err, &unreachable):
			return "run session start with TMPDIR set to a directory every user may pass through, such as /tmp"
		case errors.As(err, &notAdmitted) && notAdmitted.Session != "":
			return "the user who started the session can start one for this user: mcp session start --agent NAME --user " + notAdmitted.User()
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
		parts = append(parts, "--allow-unknown sends "+plural(len(far), "it", "them")+" anyway")
	case len(far) > 0:
		parts = append(parts, "--allow-unknown sends "+strings.Join(far, ", ")+" anyway")
	}
	return strings.Join(parts, "; ")
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

// oneLine keeps an error message on one line.
func oneLine(err error) string { return clip.Error(err) }
