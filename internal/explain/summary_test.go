package explain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/auth/authtest"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// connectErr connects to ep as mcp does, with OAuth from a token store of
// its own, and returns the error.
func connectErr(t *testing.T, ep manifests.Endpoint, timeout time.Duration) error {
	t.Helper()
	mgr := &auth.Manager{Store: auth.NewStore(t.TempDir())}
	up, err := upstream.Connect(context.Background(), ep, upstream.Options{Auth: mgr.RoundTripper, ConnectTimeout: timeout})
	if err == nil {
		up.Close()
		t.Fatalf("connecting to %s worked", ep.ID)
	}
	return err
}

func TestErrorSummary(t *testing.T) {
	t.Setenv(session.EnvVar, "")
	os.Unsetenv(session.EnvVar)
	srv := authtest.New(t, authtest.Options{})
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "broken: token=SeCrEt-in-body", http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	sh := func(script string) manifests.Endpoint {
		return manifests.Endpoint{ID: "local", Command: "/bin/sh", Args: []string{"-c", script}}
	}

	tests := []struct {
		name string
		err  func(t *testing.T) error
		want string
	}{
		{"login required", func(t *testing.T) error {
			return connectErr(t, manifests.Endpoint{ID: "notes", URL: srv.MCPURL, Type: "http"}, 0)
		}, "needs a login: run `mcp auth login notes`"},
		{"HTTP error", func(t *testing.T) error {
			return connectErr(t, manifests.Endpoint{ID: "remote", URL: failing.URL + "/mcp?key=SeCrEt-key", Type: "http"}, 0)
		}, "unavailable: HTTP 500 Internal Server Error"},
		{"nothing listens", func(t *testing.T) error {
			return connectErr(t, manifests.Endpoint{ID: "remote", URL: closed, Type: "http"}, 0)
		}, "unavailable: connection refused (nothing listens at its url)"},
		{"host does not resolve", func(t *testing.T) error {
			return connectErr(t, manifests.Endpoint{ID: "remote", URL: "http://no-such-host.invalid/mcp", Type: "http"}, 0)
		}, "unavailable: its host name does not resolve"},
		{"exits at start", func(t *testing.T) error {
			return connectErr(t, sh("echo 'fatal: API_KEY is not set' >&2; exit 7"), 0)
		}, "unavailable: exited during startup: exit status 7"},
		{"command not found", func(t *testing.T) error {
			return connectErr(t, manifests.Endpoint{ID: "local", Command: "no-such-mcp-server"}, 0)
		}, "unavailable: its command was not found"},
		{"never answers", func(t *testing.T) error {
			return connectErr(t, sh("exec sleep 60"), 300*time.Millisecond)
		}, "timed out: no answer to initialize within 300ms"},
		{"no endpoint", func(t *testing.T) error { return &mux.NoEndpointError{Server: "x"} },
			"not configured: no manifest or local binding says where it lives"},
		{"missing variable", func(t *testing.T) error {
			return fmt.Errorf("expand: %w", &manifests.MissingVarError{Server: "x", Var: "API_TOKEN", Field: "env.API_TOKEN"})
		}, "not configured: $API_TOKEN (in env.API_TOKEN) is not set"},
		{"not available", func(t *testing.T) error { return &catalog.NotAvailableError{Server: "x"} }, "not available here"},
		{"not available in a session", func(t *testing.T) error { return &catalog.NotAvailableError{Server: "x", Session: true} }, "not available in this session"},
		{"rpc error", func(t *testing.T) error {
			return &upstream.RPCError{Code: -32603, Message: "boom\n" + strings.Repeat("x", 300)}
		}, "server error -32603: boom " + strings.Repeat("x", 120-len("server error -32603: boom ")-1) + "…"},
		{"deadline", func(t *testing.T) error { return fmt.Errorf("list: %w", context.DeadlineExceeded) }, "timed out"},
		{"other", func(t *testing.T) error { return errors.New("first line\nsecond line") }, "first line second line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err(t)
			got := Summary(err)
			if got != tt.want {
				t.Errorf("Summary(%q)\n got %q\nwant %q", err, got, tt.want)
			}
			if strings.Contains(got, "SeCrEt") || strings.ContainsAny(got, "\n\r") || len([]rune(got)) > MaxSummary {
				t.Errorf("summary %q holds a secret, a newline or is too long", got)
			}
		})
	}

	// In a session, the command is to be run outside it.
	t.Setenv(session.EnvVar, "s1")
	err = connectErr(t, manifests.Endpoint{ID: "notes", URL: srv.MCPURL, Type: "http"}, 0)
	if got, want := Summary(err), "needs a login: run `mcp auth login notes` outside the session"; got != want {
		t.Errorf("in a session: %q, want %q", got, want)
	}
}
