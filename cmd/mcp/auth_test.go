package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/auth/authtest"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
)

// authServers holds the test authorization server of each script.
var authServers sync.Map // *testscript.TestScript → *authtest.Server

// authServerCmd drives a test authorization server (auth/authtest) from a
// script:
//
//	authserver start [-scopes a,b] [-write-scope s] [-lifetime 1h] [-no-registration] [-client ID]
//	                 [-no-revocation] [-fail-revocation] [-echo]
//	authserver revoke-access | revoke-refresh
//	authserver fail-lists on|off | fail-refresh on|off
//	authserver stats
//
// start sets MCP_URL (the protected MCP endpoint), AS_URL and, with
// -client, CLIENT_SECRET for a client registered beforehand.
func authServerCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: authserver start|revoke-access|revoke-refresh|stats")
	}
	if args[0] == "start" {
		fs := flag.NewFlagSet("authserver", flag.ContinueOnError)
		scopes := fs.String("scopes", "", "")
		write := fs.String("write-scope", "", "")
		lifetime := fs.Duration("lifetime", time.Hour, "")
		noReg := fs.Bool("no-registration", false, "")
		clientID := fs.String("client", "", "")
		noRevoke := fs.Bool("no-revocation", false, "")
		failRevoke := fs.Bool("fail-revocation", false, "")
		echo := fs.Bool("echo", false, "")
		if err := fs.Parse(args[1:]); err != nil {
			ts.Fatalf("authserver: %v", err)
		}
		opts := authtest.Options{WriteScope: *write, TokenLifetime: *lifetime, NoRegistration: *noReg,
			NoRevocation: *noRevoke, FailRevocation: *failRevoke, Echo: *echo}
		if *scopes != "" {
			opts.ScopesSupported = strings.Split(*scopes, ",")
		}
		secret := authtest.Marker + "-configured-client-secret"
		if *clientID != "" {
			opts.Clients = map[string]string{*clientID: secret}
		}
		srv := authtest.Start(opts)
		ts.Defer(srv.Close)
		authServers.Store(ts, srv)
		ts.Setenv("MCP_URL", srv.MCPURL)
		ts.Setenv("AS_URL", srv.Issuer)
		ts.Setenv("CLIENT_SECRET", secret)
		return
	}
	v, ok := authServers.Load(ts)
	if !ok {
		ts.Fatalf("authserver: no server started")
	}
	srv := v.(*authtest.Server)
	switch args[0] {
	case "revoke-access":
		srv.RevokeAccessTokens()
	case "revoke-refresh":
		srv.RevokeRefreshTokens()
	case "fail-lists", "fail-refresh":
		if len(args) != 2 || args[1] != "on" && args[1] != "off" {
			ts.Fatalf("usage: authserver %s on|off", args[0])
		}
		map[string]func(bool){"fail-lists": srv.FailLists, "fail-refresh": srv.FailRefresh}[args[0]](args[1] == "on")
	case "stats":
		st := srv.Stats()
		fmt.Fprintf(ts.Stdout(), "registrations %d\nauthorizations %d\nexchanges %d\nrefreshes %d\nscope %s\nrefresh-resource %s\n",
			st.Registrations, st.Authorizations, st.CodeExchanges, st.Refreshes, st.LastScope, st.RefreshResource)
		var revs []string
		for _, r := range st.Revocations {
			revs = append(revs, r.Hint+"="+r.Revoked)
		}
		fmt.Fprintf(ts.Stdout(), "revocations %s\n", strings.Join(revs, " "))
	default:
		ts.Fatalf("authserver: unknown subcommand %q", args[0])
	}
}

// TestAuth_NothingLeaks runs the auth commands and the verbs around them in
// this process, and looks for every secret the authorization server issued
// (client secrets, codes, access and refresh tokens) in everything mcp
// wrote: stdout, stderr, and the files of its cache, temporary and
// configuration directories (except the token store, where they belong).
func TestAuth_NothingLeaks(t *testing.T) {
	srv := authtest.New(t, authtest.Options{ScopesSupported: []string{"notes:read"}, WriteScope: "notes:write"})
	root := t.TempDir()
	// The multiplexers this test starts end before its files are removed.
	t.Cleanup(func() { stopDaemons(t, filepath.Join(root, "tmp")) })
	home := filepath.Join(root, "home")
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_CACHE_HOME": filepath.Join(home, ".cache"),
		"TMPDIR": filepath.Join(root, "tmp"), "XDG_RUNTIME_DIR": "", "MCP_URL": srv.MCPURL, auth.AutoFollowEnv: "",
	} {
		t.Setenv(k, v)
		if strings.HasSuffix(k, "HOME") || k == "TMPDIR" {
			if err := os.MkdirAll(v, 0o700); err != nil {
				t.Fatal(err)
			}
		}
	}
	recipe := filepath.Join(root, "recipe")
	writeFiles(t, recipe, map[string]string{
		"package.json":       `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "notes", "tools": {"include": ["*"]}}]}}}`,
		"mcp.json":           `{"mcpServers": {"notes": {"url": "${MCP_URL}", "type": "http"}}}`,
		"agents/reader.yaml": "mcp:\n  servers:\n    notes:\n      include: [\"*\"]\n",
	})
	t.Chdir(recipe)
	t.Setenv(session.EnvVar, "")
	os.Unsetenv(session.EnvVar)

	var out bytes.Buffer
	run := func(want int, args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := Main(args, strings.NewReader(""), &stdout, &stderr)
		out.Write(stdout.Bytes())
		out.Write(stderr.Bytes())
		if code != want {
			t.Errorf("mcp %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, &stdout, &stderr)
		}
	}
	run(0, "trust")
	run(4, "call", "notes.whoami")
	run(0, "auth", "login", "notes", "--follow")
	run(0, "auth", "login", "notes", "--follow", "--json")
	run(0, "call", "notes.whoami")
	run(0, "call", "notes.whoami", "--json")
	run(0, "list")
	run(0, "list", "notes", "--json")
	run(0, "check")
	run(0, "check", "--json")
	run(0, "auth", "status")
	run(0, "auth", "status", "--json")
	srv.RevokeAccessTokens()
	run(0, "call", "notes.whoami")
	run(4, "call", "notes.write", "text=hi") // needs notes:write: a login
	run(0, "auth", "status", "notes")
	srv.RevokeAccessTokens()
	srv.RevokeRefreshTokens()
	run(4, "call", "notes.whoami") // the refresh is refused; the error echoes the token
	run(4, "list", "--json")
	run(0, "auth", "logout", "notes")
	run(4, "call", "notes.whoami")

	// In a session, the one line names the command to run outside it.
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"session", "start", "--agent", "reader"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("session start: exit %d: %s", code, &stderr)
	}
	out.Write(stdout.Bytes())
	out.Write(stderr.Bytes())
	id := strings.TrimPrefix(strings.TrimSpace(stdout.String()), "export MCP_SESSION=")
	t.Setenv(session.EnvVar, id)
	stderr.Reset()
	if code := Main([]string{"call", "notes.whoami"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != exit.Upstream {
		t.Errorf("call in a session without a login: exit %d, want %d", code, exit.Upstream)
	}
	want := "mcp: error: server notes needs a login (no stored login): run `mcp auth login notes` outside the session\n"
	if stderr.String() != want {
		t.Errorf("stderr = %q, want one line %q", stderr.String(), want)
	}
	out.Write(stderr.Bytes())
	os.Unsetenv(session.EnvVar)

	secrets := srv.Secrets()
	if len(secrets) < 8 {
		t.Fatalf("only %d secrets issued: the flow did not run", len(secrets))
	}
	check := func(what string, data []byte) {
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds secret %s", what, s)
			}
		}
		if bytes.Contains(data, []byte(authtest.Marker)) {
			t.Errorf("%s holds the secret marker %s", what, authtest.Marker)
		}
	}
	check("output", out.Bytes())
	tokens := filepath.Join(home, ".config", "mcp", "tokens")
	files := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && p == tokens {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			files++
			check(p, data)
		}
		return nil
	})
	if files < 3 {
		t.Errorf("only %d files written outside the token store; the walk missed them", files)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
