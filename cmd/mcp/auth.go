package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/manifests"
)

type authCmd struct {
	Login  authLoginCmd  `cmd:"" help:"Log in to a server with OAuth and keep the token in the token store.\n\n  mcp auth login SERVER\n  mcp auth login SERVER --no-browser"`
	Logout authLogoutCmd `cmd:"" help:"Revoke a server's stored login at its authorization server, when that offers revocation, and forget it here.\n\n  mcp auth logout SERVER"`
	Status authStatusCmd `cmd:"" help:"Show stored logins: state, expiry and scopes, never the tokens.\n\n  mcp auth status\n  mcp auth status SERVER --json"`
}

type authLoginCmd struct {
	Server    string        `arg:"" help:"The server to log in to, as the recipe names it." placeholder:"SERVER"`
	NoBrowser bool          `name:"no-browser" help:"Print the authorization URL instead of opening a browser, and also take the address the browser was redirected to on stdin (for a browser on another machine)."`
	Follow    bool          `help:"Fetch the authorization URL and follow its redirects without a browser, for authorization servers that approve by themselves (MCP_AUTH_AUTO_FOLLOW=1 does the same)."`
	Wait      time.Duration `default:"5m" help:"How long to wait for the browser to come back."`
}

type authLogoutCmd struct {
	Server string `arg:"" help:"The server whose stored logins to forget." placeholder:"SERVER"`
}

type authStatusCmd struct {
	Server string `arg:"" optional:"" help:"Show this server only." placeholder:"SERVER"`
}

// newAuthManager returns the manager of the user's token store.
func newAuthManager() (*auth.Manager, error) {
	return auth.DefaultManager("mcp", build.Number())
}

func (c *authLoginCmd) Run(a *app) error {
	opts := auth.LoginOptions{Prompt: a.stderr, Wait: c.Wait, Follow: c.Follow || auth.AutoFollowSet()}
	switch {
	case opts.Follow:
	case c.NoBrowser:
		opts.Paste = a.stdin
	default:
		opts.Browser = auth.OpenBrowser
	}
	rec, err := a.login(c.Server, opts)
	if err != nil {
		return err
	}
	st := rec.Status(time.Now())
	if a.globals.JSON {
		return a.writeJSON(st)
	}
	fmt.Fprintf(a.stdout, "logged in to %s (%s)\n", st.Server, st.Describe(time.Now()))
	return nil
}

// login runs the authorization of a server of this recipe as opts say,
// until it ends or the user interrupts it. A login waits for a person:
// opts.Wait bounds it, not --timeout.
func (a *app) login(server string, opts auth.LoginOptions) (*auth.Record, error) {
	ep, err := a.authEndpoint(server)
	if err != nil {
		return nil, err
	}
	mgr, err := newAuthManager()
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mgr.Login(ctx, ep, opts)
}

// authEndpoint is the expanded endpoint of a server of this recipe's
// boundary (or --agent's surface).
func (a *app) authEndpoint(server string) (manifests.Endpoint, error) {
	_, cfg, err := a.config()
	if err != nil {
		return manifests.Endpoint{}, err
	}
	ep, ok, err := cfg.Endpoint(server)
	if !ok {
		return ep, &usageError{msg: fmt.Sprintf("server %s is not in this recipe", server),
			hint: "`mcp list` shows the servers; `mcp check` shows the boundary"}
	}
	return ep, err
}

func (c *authLogoutCmd) Run(a *app) error {
	if !manifests.ValidServerID(c.Server) {
		return &usageError{msg: fmt.Sprintf("%q is not a server id", c.Server)}
	}
	mgr, err := newAuthManager()
	if err != nil {
		return err
	}
	ctx, cancel := a.context()
	defer cancel()
	res, err := mgr.Logout(ctx, c.Server)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		a.warn("%s; it is forgotten here all the same", w)
	}
	if a.globals.JSON {
		return a.writeJSON(map[string]any{"server": c.Server, "removed": res.Removed,
			"revoked": res.Revoked, "warnings": append([]string{}, res.Warnings...)})
	}
	if res.Removed == 0 {
		fmt.Fprintf(a.stdout, "no stored login for %s\n", c.Server)
		return nil
	}
	fmt.Fprintf(a.stdout, "logged out of %s (%s)\n", c.Server, res.Describe())
	return nil
}

func (c *authStatusCmd) Run(a *app) error {
	mgr, err := newAuthManager()
	if err != nil {
		return err
	}
	recs, err := mgr.Store.List()
	if err != nil {
		return err
	}
	now := time.Now()
	out := []auth.Status{}
	for _, r := range recs {
		if c.Server == "" || manifests.CanonicalID(r.Server) == manifests.CanonicalID(c.Server) {
			out = append(out, r.Status(now))
		}
	}
	if a.globals.JSON {
		return a.writeJSON(out)
	}
	if len(out) == 0 {
		if c.Server != "" {
			fmt.Fprintf(a.stdout, "no stored login for %s\n", c.Server)
		} else {
			fmt.Fprintln(a.stdout, "no stored logins")
		}
		return nil
	}
	for _, st := range out {
		fmt.Fprintf(a.stdout, "%s  %s  %s\n", st.Server, st.Describe(now), st.URL)
	}
	return nil
}
