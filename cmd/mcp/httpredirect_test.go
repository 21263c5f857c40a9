//go:build unix

package main

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/internal/exit"
)

// recorder is a server of another origin that keeps every request it gets,
// headers and body, as text.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n", req.Method, req.URL)
		_ = req.Header.Write(&b)
		b.Write(body)
		r.mu.Lock()
		r.seen = append(r.seen, b.String())
		r.mu.Unlock()
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// redirectingTo answers every request with status and a Location on
// target, path and query kept.
func redirectingTo(target string, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, target+r.URL.RequestURI(), status)
	})
}

// Redirects keep a recipe's credentials at home. A server that answers the
// handshake with a 307 to another origin (another port) gets the request
// refused, so the other origin sees neither its headers nor its body; a
// server whose event stream (a GET) is sent to another origin is followed
// there without the recipe's X-Api-Key and Authorization, nor the
// session's id; a server on https that redirects to http is refused. Each
// refusal is one line and exit 4.
func TestRedirectsKeepCredentials(t *testing.T) {
	m := newMuxEnv(t)
	other := newRecorder(t)
	hop := httptest.NewServer(redirectingTo(other.srv.URL, http.StatusTemporaryRedirect))
	t.Cleanup(hop.Close)

	s := server.NewMCPServer("streamer", "1.0.0")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("message", "")), nil
	})
	h := server.NewStreamableHTTPServer(s)
	away := redirectingTo(other.srv.URL, http.StatusTemporaryRedirect)
	streamer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			away.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(streamer.Close)

	plain := newRecorder(t)
	secure := httptest.NewTLSServer(redirectingTo(plain.srv.URL, http.StatusFound))
	t.Cleanup(secure.Close)
	roots := filepath.Join(m.tmp, "roots.pem")
	if err := os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	const key, token = "hopkey-0123456789abcdef", "hoptoken-0123456789abcdef"
	headers := `"headers": {"X-Api-Key": "` + key + `", "Authorization": "Bearer ` + token + `"}`
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "hop": {"url": "`+hop.URL+`/mcp", "type": "http", `+headers+`},
  "streamer": {"url": "`+streamer.URL+`/mcp", "type": "http", `+headers+`},
  "secure": {"url": "`+secure.URL+`/mcp", "type": "http", `+headers+`}}}`)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "hop", "tools": {"include": ["*"]}},
  {"id": "streamer", "tools": {"include": ["*"]}},
  {"id": "secure", "tools": {"include": ["*"]}}]}}}`)
	m.env = append(m.env, "SSL_CERT_FILE="+roots)
	m.trust()

	r := m.expect(exit.Upstream, "mcp: error: server hop is unavailable: ", "list", "hop")
	if !strings.Contains(r.stderr, "refused a redirect from "+hop.URL+" to "+other.srv.URL+": it would send the request's body to another origin") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("a 307 of the handshake to another origin:\n%s", r.stderr)
	}

	if out := m.must("call", "streamer.echo", "message=hello"); out != "hello\n" {
		t.Errorf("streamer.echo printed %q", out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(other.requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	seen := other.requests()
	if len(seen) == 0 {
		t.Fatal("the event stream's GET was not redirected to the other origin")
	}
	for _, req := range seen {
		if !strings.HasPrefix(req, "GET ") || strings.Contains(req, key) || strings.Contains(req, token) ||
			strings.Contains(strings.ToLower(req), "mcp-session-id") || strings.Contains(req, "initialize") ||
			strings.Contains(req, "hello") {
			t.Errorf("the other origin got:\n%s", req)
		}
	}

	r = m.expect(exit.Upstream, "mcp: error: server secure is unavailable: ", "list", "secure")
	if !strings.Contains(r.stderr, "refused a redirect from "+secure.URL+" to "+plain.srv.URL+": mcp does not follow a redirect from https to http") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("a redirect from https to http:\n%s", r.stderr)
	}
	if got := plain.requests(); len(got) != 0 {
		t.Errorf("the http server got %q", got)
	}
}
