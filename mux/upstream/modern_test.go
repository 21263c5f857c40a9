package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// memory is a RevisionMemory in memory, counting writes.
type memory struct {
	mu     sync.Mutex
	rev    map[string]string
	writes int
}

func (m *memory) Recall(ep manifests.Endpoint) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rev[ep.ID+" "+ep.URL+" "+ep.Command]
}

func (m *memory) Remember(ep manifests.Endpoint, rev string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rev == nil {
		m.rev = map[string]string{}
	}
	m.rev[ep.ID+" "+ep.URL+" "+ep.Command] = rev
	m.writes++
	return nil
}

// legacyHTTP serves the fake tool set over streamable HTTP with the
// handshake only, and records the JSON-RPC method of every POST.
func legacyHTTP(t *testing.T) (manifests.Endpoint, func() []string) {
	h := server.NewStreamableHTTPServer(testenv.FakeMCPServer(), server.WithStreamableHTTPProtocolVersions("2025-11-25"))
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct{ Method string }
			_ = json.Unmarshal(body, &m)
			mu.Lock()
			seen = append(seen, m.Method)
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return manifests.Endpoint{ID: "legacy", URL: ts.URL + "/mcp", Type: "http"}, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

func connectErr(t *testing.T, ep manifests.Endpoint, opts Options) (*conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	up, err := Connect(ctx, ep, opts)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { up.Close() })
	return up.(*conn), nil
}

// A server that speaks the handshake gets exactly one initialize and no
// server/discover, and nothing is remembered.
func TestNegotiate_legacyCostsNothing(t *testing.T) {
	t.Parallel()
	ep, seen := legacyHTTP(t)
	mem := &memory{}
	for _, ep := range []manifests.Endpoint{ep, testenv.FakeServer(t, testenv.ModeDefault)} {
		u := connect(t, ep, Options{Revisions: mem})
		if u.ProtocolVersion() != "2025-11-25" || u.modern != nil {
			t.Errorf("%s: revision %q", ep.ID, u.ProtocolVersion())
		}
		listTools(t, u)
	}
	if got := strings.Join(seen(), ","); got != "initialize,notifications/initialized,tools/list" {
		t.Errorf("requests %v, want one initialize, no server/discover", got)
	}
	if mem.writes != 0 {
		t.Errorf("%d writes to the memory", mem.writes)
	}
}

// A modern-only server, over stdio and streamable HTTP: the refused
// handshake is followed by 2026-07-28, which is remembered, and the next
// connect goes straight to it. Every request carries the revision's _meta
// and headers (the servers refuse any that does not).
func TestNegotiate_modernOnly(t *testing.T) {
	t.Parallel()
	srv := testenv.FakeMCPServer()
	mh := &testenv.ModernHTTP{Next: server.NewStreamableHTTPServer(srv)}
	ts := httptest.NewServer(mh)
	t.Cleanup(ts.Close)
	for _, ep := range []manifests.Endpoint{
		{ID: "modern-http", URL: ts.URL + "/mcp", Type: "http"},
		{ID: "modern-auto", URL: ts.URL + "/mcp"},
		testenv.FakeServer(t, testenv.ModeModern),
	} {
		t.Run(ep.ID, func(t *testing.T) {
			mem := &memory{}
			u := connect(t, ep, Options{Revisions: mem})
			if u.ProtocolVersion() != Modern || mem.Recall(ep) != Modern {
				t.Fatalf("revision %q, remembered %q", u.ProtocolVersion(), mem.Recall(ep))
			}
			if _, ok := listTools(t, u)["echo"]; !ok {
				t.Fatal("no echo tool")
			}
			if got := text(t, call(t, u, "echo", `{"message":"hi"}`)); got != "Echo: hi" {
				t.Errorf("echo: %q", got)
			}
			u.Close()
			before := len(mh.Posts("initialize"))
			u = connect(t, ep, Options{Revisions: mem})
			if u.ProtocolVersion() != Modern || len(mh.Posts("initialize")) != before {
				t.Errorf("second connect: revision %q, %d more initialize", u.ProtocolVersion(), len(mh.Posts("initialize"))-before)
			}
			if ep.URL != "" && u.Transport() != manifests.TransportHTTP {
				t.Errorf("transport %s", u.Transport())
			}
		})
	}
}

// A pinned revision is spoken at once and never negotiated.
func TestNegotiate_pinned(t *testing.T) {
	t.Parallel()
	mh := &testenv.ModernHTTP{Next: server.NewStreamableHTTPServer(testenv.FakeMCPServer())}
	ts := httptest.NewServer(mh)
	t.Cleanup(ts.Close)
	ep := manifests.Endpoint{ID: "pinned", URL: ts.URL + "/mcp", Type: "http", ProtocolVersion: Modern}
	mem := &memory{}
	u := connect(t, ep, Options{Revisions: mem})
	if u.ProtocolVersion() != Modern || len(mh.Posts("initialize")) != 0 || mem.writes != 0 {
		t.Errorf("revision %q, %d initialize, %d writes", u.ProtocolVersion(), len(mh.Posts("initialize")), mem.writes)
	}
	ep.ProtocolVersion = "2025-06-18"
	_, err := connectErr(t, ep, Options{Revisions: mem})
	if ue := asUnavailable(t, err); !strings.Contains(ue.Error(), "HTTP 400") {
		t.Errorf("pinned legacy against a modern-only server: %v", err)
	}
	if len(mh.Posts("server/discover")) != 1 {
		t.Errorf("%d server/discover, want the pinned one's only", len(mh.Posts("server/discover")))
	}
}

// A remembered 2026-07-28 that the server no longer speaks falls back to
// the handshake once, and is forgotten.
func TestNegotiate_rememberedModernFallsBack(t *testing.T) {
	t.Parallel()
	// server-everything answers server/discover with -32601; the fake
	// HTTP server is told to serve only the handshake.
	legacy, _ := legacyHTTP(t)
	for _, ep := range []manifests.Endpoint{legacy, testenv.EverythingStdio(t)} {
		mem := &memory{}
		_ = mem.Remember(ep, Modern)
		u := connect(t, ep, Options{Revisions: mem})
		if u.ProtocolVersion() == Modern || mem.Recall(ep) != "" {
			t.Errorf("%s: revision %q, remembered %q", ep.ID, u.ProtocolVersion(), mem.Recall(ep))
		}
		listTools(t, u)
	}
}

// A server that refuses both says what each revision got.
func TestNegotiate_neither(t *testing.T) {
	t.Parallel()
	_, err := connectErr(t, testenv.FakeServer(t, testenv.ModeInitError), Options{})
	msg := asUnavailable(t, err).Error()
	if !strings.Contains(msg, "unsupported protocol version") || !strings.Contains(msg, "speaking 2026-07-28") {
		t.Errorf("error = %s", msg)
	}
}

// Over HTTP, 2026-07-28 requests carry Mcp-Method and Mcp-Name, and the
// arguments marked x-mcp-header travel in Mcp-Param-* headers, Base64
// encoded when unsafe, left out when null; a tool whose annotations are
// invalid is not offered, with one warning.
func TestModern_headers(t *testing.T) {
	t.Parallel()
	raw := testenv.NewRawModern(t)
	var warnings []string
	u := connect(t, raw.Endpoint("raw"), Options{OnWarning: func(s string) { warnings = append(warnings, s) }})
	// Not listed yet: the call lists first, for the annotations.
	call(t, u, "route", `{"region":"eu-west","count":42,"note":"héllo "}`)
	call(t, u, "route", `{"region":null,"count":7}`)
	posts := raw.Posts("tools/call")
	if len(posts) != 2 {
		t.Fatalf("%d calls", len(posts))
	}
	h := posts[0].Header
	want := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "route", "Mcp-Protocol-Version": Modern,
		"Mcp-Param-Region": "eu-west", "Mcp-Param-Count": "42", "Mcp-Param-Note": "=?base64?aMOpbGxvIA==?="}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, h.Get(k), v)
		}
	}
	if h2 := posts[1].Header; h2.Values("Mcp-Param-Region") != nil || h2.Get("Mcp-Param-Count") != "7" {
		t.Errorf("second call: region %q, count %q", h2.Values("Mcp-Param-Region"), h2.Get("Mcp-Param-Count"))
	}
	if l := raw.Posts("tools/list"); len(l) != 1 || l[0].Header.Get("Mcp-Name") != "" {
		t.Errorf("tools/list: %d, %v", len(l), l)
	}
	tools := listTools(t, u)
	if _, ok := tools["badheader"]; ok || len(tools) != 3 {
		t.Errorf("tools %v", tools)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "raw.badheader is not offered") || !strings.Contains(warnings[0], "x-mcp-header") {
		t.Errorf("warnings %q", warnings)
	}
}

// resultType: missing or complete is a result; input_required of a call
// goes to the rounds of a multi-round-trip request; anything else is
// refused.
func TestModern_resultType(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.NewRawModern(t).Endpoint("raw"), Options{})
	_, err := u.CallTool(context.Background(), "odd", nil)
	if !errors.Is(err, ErrUnsupportedResult) || !strings.Contains(err.Error(), `resultType "banana"`) {
		t.Errorf("odd: %v", err)
	}
	// The server asks for input every time, with nothing to answer.
	if _, err := u.CallTool(context.Background(), "pending", nil); err == nil || errors.Is(err, ErrUnsupportedResult) ||
		!strings.Contains(err.Error(), "asked for input") {
		t.Errorf("pending: %v", err)
	}
	if got := text(t, call(t, u, "route", `{}`)); got != "routed" {
		t.Errorf("route: %q", got)
	}
}

// ttlMs and cacheScope of tools/list come back as the connection's hint.
func TestModern_cacheHint(t *testing.T) {
	t.Parallel()
	raw := testenv.NewRawModern(t)
	raw.TTLMs.Store(1500)
	u := connect(t, raw.Endpoint("raw"), Options{})
	listTools(t, u)
	if h := u.CacheHint(); h.TTL == nil || *h.TTL != 1500*time.Millisecond || h.Scope != "public" {
		t.Errorf("hint %+v", h)
	}
}

// A tools/list whose response stream breaks is sent again with a new id;
// a tools/call is not.
func TestModern_brokenStreamReissued(t *testing.T) {
	t.Parallel()
	raw := testenv.NewRawModern(t)
	u := connect(t, raw.Endpoint("raw"), Options{})
	raw.BreakLists.Store(1)
	if len(listTools(t, u)) != 3 {
		t.Error("tools missing")
	}
	lists := raw.Posts("tools/list")
	if len(lists) != 2 || idOf(lists[0].Body) == idOf(lists[1].Body) {
		t.Fatalf("%d tools/list", len(lists))
	}
	// A tools/call is not repeated: the tool may have run.
	raw.BreakCalls.Store(1)
	if _, err := u.CallTool(context.Background(), "route", nil); err == nil {
		t.Error("a call whose stream broke succeeded")
	}
	if n := len(raw.Posts("tools/call")); n != 1 {
		t.Errorf("%d tools/call sent", n)
	}
}

func idOf(body []byte) string {
	var m struct{ ID json.RawMessage }
	_ = json.Unmarshal(body, &m)
	return string(m.ID)
}

// On 2026-07-28 tools/list_changed arrives on a subscriptions/listen
// stream, which the connection keeps open: OnToolsChanged works there as on
// the handshake, over stdio and streamable HTTP.
func TestModern_toolsChanged(t *testing.T) {
	t.Parallel()
	mh := &testenv.ModernHTTP{Next: server.NewStreamableHTTPServer(testenv.FakeMCPServer())}
	ts := httptest.NewServer(mh)
	t.Cleanup(ts.Close)
	for _, ep := range []manifests.Endpoint{
		{ID: "modern-http", URL: ts.URL + "/mcp", Type: "http", ProtocolVersion: Modern},
		testenv.FakeServer(t, testenv.ModeModern),
	} {
		t.Run(ep.ID, func(t *testing.T) {
			u := connect(t, ep, Options{})
			changed := make(chan struct{}, 10)
			u.OnToolsChanged(func() { changed <- struct{}{} })
			// The stream is open before the change.
			deadline := time.Now().Add(5 * time.Second)
			for ep.URL != "" && len(mh.Posts("subscriptions/listen")) == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			call(t, u, "addtool", `{"name":"fresh"}`)
			select {
			case <-changed:
			case <-time.After(5 * time.Second):
				t.Fatal("OnToolsChanged was not called")
			}
			if _, ok := listTools(t, u)["fresh"]; !ok {
				t.Error("the new tool is not listed")
			}
		})
	}
}

// A connection of the handshake over streamable HTTP sends the headers of
// 2026-07-28 too: the initialize asks for its revision in _meta and in
// MCP-Protocol-Version, every POST names its method in Mcp-Method, and a
// tools/call mirrors its x-mcp-header arguments, taken from the schema the
// caller gives when the connection has not listed.
func TestHeaders_legacyHTTP(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("legacy", "1", server.WithToolCapabilities(true))
	schema := json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)
	s.AddTool(mcp.NewToolWithRawSchema("route", "", schema), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("routed"), nil
	})
	rec := &testenv.ModernHTTP{Next: server.NewStreamableHTTPServer(s, server.WithStreamableHTTPProtocolVersions("2025-11-25")), Lenient: true}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	u := connect(t, manifests.Endpoint{ID: "legacy", URL: ts.URL + "/mcp", Type: "http"}, Options{})
	if u.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("revision %q", u.ProtocolVersion())
	}
	ctx := WithInputSchema(context.Background(), schema)
	if res, err := u.CallTool(ctx, "route", json.RawMessage(`{"region":"eu"}`)); err != nil || text(t, res) != "routed" {
		t.Fatalf("call: %v", err)
	}
	if n := len(rec.Posts("tools/list")); n != 0 {
		t.Errorf("%d tools/list before the call, want none", n)
	}
	for _, p := range rec.Posts("") {
		if p.Method != "" && p.Header.Get("Mcp-Method") != p.Method {
			t.Errorf("%s: Mcp-Method %q", p.Method, p.Header.Get("Mcp-Method"))
		}
	}
	init := rec.Posts("initialize")[0]
	if v := init.Header.Get("Mcp-Protocol-Version"); v != "2025-11-25" || !strings.Contains(string(init.Body), `"io.modelcontextprotocol/protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize: header %q, body %s", v, init.Body)
	}
	if h := rec.Posts("tools/call")[0].Header; h.Get("Mcp-Name") != "route" || h.Get("Mcp-Param-Region") != "eu" {
		t.Errorf("tools/call headers %v", h)
	}
}
