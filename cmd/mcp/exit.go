package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// Exit codes, as DESIGN.md §3 lists them.
const (
	exitOK          = 0
	exitToolError   = 1 // the tool ran and reported an error
	exitUsage       = 2 // usage error or refused
	exitUnavailable = 3 // not available in this session
	exitUpstream    = 4 // upstream unavailable: start, connect, timeout
	exitConfig      = 5 // invalid configuration
)

// alreadyReported wraps an error whose details were printed already; only
// its exit code is still to be decided.
type alreadyReported struct{ err error }

func (e *alreadyReported) Error() string { return e.err.Error() }
func (e *alreadyReported) Unwrap() error { return e.err }

// report prints err in mcp's voice and returns the exit code.
func report(w io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	code, hint := classify(err)
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
	if hint != "" {
		fmt.Fprintf(w, "mcp: hint: %s\n", hint)
	}
	return code
}

// classify maps an error to its exit code and, where useful, a hint.
func classify(err error) (int, string) {
	var (
		refused   *refusal
		usage     *usageError
		argUsage  *catalog.ArgError
		invalid   *invalidArgs
		notAvail  *catalog.NotAvailableError
		tool      *toolError
		unavail   *upstream.UnavailableError
		noEP      *mux.NoEndpointError
		missing   *manifests.MissingVarError
		cfgErrs   manifests.Errors
		cfgErr    *manifests.Error
		badConfig *invalidConfig
		noSession *session.NotFoundError
		jsNotAv   *script.NotAvailableError
		jsTool    *script.ToolError
		jsLimit   *script.LimitError
		jsProgram *script.ProgramError
		rpc       *upstream.RPCError
		login     *auth.LoginRequiredError
		noClient  *auth.NoClientError
		noOAuth   *auth.NoOAuthError
	)
	switch {
	case errors.As(err, &refused):
		return exitUsage, "ask whoever started the session for a session with the capability you need"
	case errors.As(err, &usage):
		return exitUsage, usage.hint
	case errors.As(err, &invalid):
		return exitUsage, "the tool's signature is " + invalid.signature + "; `mcp list " + strings.SplitN(invalid.signature, "(", 2)[0] + " --schema` shows the schema"
	case errors.As(err, &argUsage):
		return exitUsage, ""
	case errors.As(err, &noSession):
		return exitUsage, "`mcp session list`, outside any session, shows the running ones; `mcp session start` starts one"
	case errors.As(err, &notAvail), errors.As(err, &jsNotAv):
		return exitUnavailable, "`mcp search WORDS` and `mcp list` show what this session can use"
	case errors.As(err, &tool), errors.As(err, &jsTool), errors.As(err, &rpc):
		return exitToolError, ""
	case errors.As(err, &noEP):
		return exitConfig, "say where it lives in a manifest named by package.json, or in .pi/mcp.local.json"
	case errors.As(err, &missing):
		return exitConfig, "export the variable, or give a default with ${VAR:-default}"
	case errors.As(err, &cfgErrs), errors.As(err, &cfgErr), errors.As(err, &badConfig):
		return exitConfig, ""
	case errors.As(err, &login):
		return exitUpstream, ""
	case errors.As(err, &noClient):
		return exitConfig, "register a client with the authorization server and set oauth.clientId (and clientSecret) for " + noClient.Server + " in .pi/mcp.local.json"
	case errors.As(err, &noOAuth):
		return exitUsage, ""
	case errors.As(err, &unavail):
		if errors.Is(err, context.DeadlineExceeded) {
			return exitUpstream, "raise --timeout if the tool needs longer"
		}
		return exitUpstream, ""
	case errors.Is(err, context.DeadlineExceeded):
		return exitUpstream, "raise --timeout if the tool needs longer"
	case errors.As(err, &jsLimit):
		if jsLimit.Kind == "timeout" {
			return exitUpstream, "raise --timeout if the program needs longer"
		}
		return exitUsage, ""
	case errors.As(err, &jsProgram):
		return exitUsage, ""
	case errors.Is(err, context.Canceled):
		return exitUpstream, ""
	}
	return exitToolError, ""
}

// oneLine keeps an error message on one line.
func oneLine(err error) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = strings.Replace(msg, context.DeadlineExceeded.Error(), "timed out", 1)
	}
	return strings.Join(strings.Fields(msg), " ")
}
