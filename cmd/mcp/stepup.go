package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/internal/session"
)

// stepUpFor returns the login err asks for when it is a server's demand
// for a wider scope (403 insufficient_scope) that this invocation can
// answer the way `mcp auth login` does: outside a session, with someone
// to approve it (a browser to open, or a terminal to show the URL on) or
// an authorization server that approves by itself (MCP_AUTH_AUTO_FOLLOW).
func (a *app) stepUpFor(err error) *auth.LoginRequiredError {
	var lr *auth.LoginRequiredError
	if !errors.As(err, &lr) || len(lr.Scopes) == 0 {
		return nil
	}
	if _, inSession := os.LookupEnv(session.EnvVar); inSession {
		return nil
	}
	if !auth.AutoFollowSet() && !auth.CanOpenBrowser() && !a.stderrIsTerminal() {
		return nil
	}
	return lr
}

// stepUp runs the authorization `mcp auth login` runs for the server lr
// names, which asks for the wider scope the server wanted.
func (a *app) stepUp(lr *auth.LoginRequiredError) error {
	fmt.Fprintf(a.stderr, "mcp: %s asks for a wider scope (%s): logging in again\n", lr.Server, strings.Join(lr.Scopes, " "))
	opts := auth.LoginOptions{Prompt: a.stderr, Wait: 5 * time.Minute, Follow: auth.AutoFollowSet()}
	if !opts.Follow {
		opts.Browser = auth.OpenBrowser
	}
	_, err := a.login(lr.Server, opts)
	return err
}

// stderrIsTerminal says whether a person may read what is written to
// stderr.
func (a *app) stderrIsTerminal() bool {
	f, ok := a.errOut.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
