package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// maxSummary bounds errorSummary's line, in characters.
const maxSummary = 120

// errorSummary says in one short line why a server cannot be used, for a
// column of one line per server (`mcp list`). It starts with the kind of
// failure ("needs a login", "unavailable", "timed out", "not configured",
// ...) and says what to do where that is one command. It is built from
// typed errors and from messages mux has already redacted, and it is cut
// to maxSummary characters, so it holds no secret and no wrapped chain.
func errorSummary(err error) string {
	var (
		login    *auth.LoginRequiredError
		noClient *auth.NoClientError
		noOAuth  *auth.NoOAuthError
		noEP     *mux.NoEndpointError
		missing  *manifests.MissingVarError
		notAvail *catalog.NotAvailableError
		rpc      *upstream.RPCError
		ue       *upstream.UnavailableError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &login):
		line := "needs a login: run `" + login.Command() + "`"
		if _, inSession := os.LookupEnv(session.EnvVar); inSession {
			line += " outside the session"
		}
		return line
	case errors.As(err, &noClient):
		return "needs an OAuth client: its authorization server registers none; set oauth.clientId"
	case errors.As(err, &noOAuth):
		return "publishes no OAuth metadata: there is nothing to log in to"
	case errors.As(err, &noEP):
		return "not configured: no manifest or local binding says where it lives"
	case errors.As(err, &missing):
		return fmt.Sprintf("not configured: $%s (in %s) is not set", missing.Var, missing.Field)
	case errors.As(err, &notAvail):
		return "not available in this session"
	case errors.As(err, &rpc):
		return cutSummary(fmt.Sprintf("server error %d: %s", rpc.Code, oneLine(errors.New(rpc.Message))))
	case errors.As(err, &ue):
		return cutSummary(unavailableSummary(ue))
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return cutSummary(oneLine(err))
}

// unavailableSummary names the cause of an UnavailableError in a few words.
func unavailableSummary(ue *upstream.UnavailableError) string {
	var dns *net.DNSError
	switch err := ue.Err; {
	case err == nil:
		return "unavailable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + strings.TrimSuffix(oneLine(err), ": timed out")
	case errors.Is(err, upstream.ErrClosed):
		return "unavailable: the connection was closed"
	case errors.Is(err, upstream.ErrMessageTooLarge):
		return "unavailable: a message from it exceeds the size limit"
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return "unavailable: its command was not found"
	case errors.Is(err, os.ErrPermission):
		return "unavailable: its command cannot be run (permission denied)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "unavailable: connection refused (nothing listens at its url)"
	case errors.As(err, &dns):
		return "unavailable: its host name does not resolve"
	}
	return "unavailable: " + oneLine(ue.Err)
}

// cutSummary cuts s to maxSummary characters.
func cutSummary(s string) string {
	if r := []rune(s); len(r) > maxSummary {
		return string(r[:maxSummary-1]) + "…"
	}
	return s
}
