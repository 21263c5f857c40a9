package auth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/auth/authtest"
)

// holdFirstForbidden passes requests to base and holds the first 403
// response it gets until release is closed, telling held when it has it:
// a refusal still on its way while other requests go on.
type holdFirstForbidden struct {
	base    http.RoundTripper
	armed   atomic.Bool
	held    chan struct{}
	release chan struct{}
}

func newHoldFirstForbidden() *holdFirstForbidden {
	h := &holdFirstForbidden{base: http.DefaultTransport, held: make(chan struct{}), release: make(chan struct{})}
	h.armed.Store(true)
	return h
}

func (h *holdFirstForbidden) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusForbidden && h.armed.CompareAndSwap(true, false) {
		close(h.held)
		<-h.release
	}
	return resp, err
}

// stepUpClient is one MCP connection through m's round tripper over
// base, as a multiplexer keeps for a server, initialized.
func stepUpClient(t *testing.T, m *Manager, srv *authtest.Server, base http.RoundTripper) *client.Client {
	t.Helper()
	ep := endpoint(srv)
	hc := &http.Client{Transport: m.RoundTripper(ep, base, nil)}
	tr, err := mcptransport.NewStreamableHTTP(ep.URL, mcptransport.WithHTTPBasicClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func callWrite(c *client.Client) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "write"
	req.Params.Arguments = map[string]any{"text": "x"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var out []string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

// Two calls over one connection both need a wider scope. The first is
// refused and a login (another process's, on the same store) widens the
// grant while the second's refusal is still on its way: the second must
// neither put the narrower login back in the store nor fail, and nobody
// logs in twice.
func TestRoundTripper_StepUpWhileAnotherLogsIn(t *testing.T) {
	srv := authtest.New(t, authtest.Options{ScopesSupported: []string{"notes:read"}, WriteScope: "notes:write"})
	m := newManager(t)
	ep := endpoint(srv)
	login(t, m, ep)
	hold := newHoldFirstForbidden()
	c := stepUpClient(t, m, srv, hold)

	type outcome struct {
		text string
		err  error
	}
	second := make(chan outcome, 1)
	go func() {
		text, err := callWrite(c)
		second <- outcome{text, err}
	}()
	<-hold.held

	_, err := callWrite(c)
	var lr *LoginRequiredError
	if !errors.As(err, &lr) || !slices.Contains(lr.Scopes, "notes:write") {
		t.Fatalf("first call: %v, want a LoginRequiredError asking for notes:write", err)
	}
	other := &Manager{Store: NewStore(m.Store.Dir()), ClientName: "mcp-test"}
	wider := login(t, other, ep)
	if !slices.Contains(wider.Scopes, "notes:write") {
		t.Fatalf("the login after the refusal got scopes %v, want notes:write among them", wider.Scopes)
	}
	close(hold.release)

	got := <-second
	if got.err != nil || !strings.Contains(got.text, "wrote") {
		t.Errorf("second call = %q, %v; want it written with the wider login", got.text, got.err)
	}
	rec, err := m.Store.Get(ep.ID, ep.URL)
	if err != nil || rec == nil || rec.Token == nil || rec.Token.AccessToken != wider.Token.AccessToken {
		var scopes []string
		if rec != nil {
			scopes = rec.Scopes
		}
		t.Fatalf("the store no longer holds the wider login: it holds a login with scopes %v (%v)", scopes, err)
	}
	if text, err := callWrite(c); err != nil || !strings.Contains(text, "wrote") {
		t.Errorf("first call made again = %q, %v", text, err)
	}
	if st := srv.Stats(); st.Authorizations != 2 {
		t.Errorf("%d authorizations, want 2: the first login and one wider", st.Authorizations)
	}
}

// With AutoFollow, a connection widens its grant by itself: two calls
// refused together get one wider grant, the second refusal using the
// grant the first one obtained.
func TestRoundTripper_AutoStepUpOnceForTwoCalls(t *testing.T) {
	srv := authtest.New(t, authtest.Options{ScopesSupported: []string{"notes:read"}, WriteScope: "notes:write"})
	m := newManager(t)
	m.AutoFollow = true
	ep := endpoint(srv)
	login(t, m, ep)
	hold := newHoldFirstForbidden()
	c := stepUpClient(t, m, srv, hold)

	type outcome struct {
		text string
		err  error
	}
	second := make(chan outcome, 1)
	go func() {
		text, err := callWrite(c)
		second <- outcome{text, err}
	}()
	<-hold.held
	if text, err := callWrite(c); err != nil || !strings.Contains(text, "wrote") {
		t.Fatalf("first call = %q, %v", text, err)
	}
	close(hold.release)
	if got := <-second; got.err != nil || !strings.Contains(got.text, "wrote") {
		t.Errorf("second call = %q, %v", got.text, got.err)
	}
	if st := srv.Stats(); st.Authorizations != 2 {
		t.Errorf("%d authorizations, want 2: the login and one wider grant for both calls", st.Authorizations)
	}
}
