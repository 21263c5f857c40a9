package toolsmode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

func TestMain(m *testing.M) {
	testenv.FakeServerMain()
	os.Exit(m.Run())
}

// newEngine is an engine over a tools-mode surface of the given servers,
// closed when the test ends.
func newEngine(t *testing.T, servers []*catalog.ServerSurface, eps ...manifests.Endpoint) *mux.Engine {
	t.Helper()
	endpoints := map[string]manifests.Endpoint{}
	for _, ep := range eps {
		endpoints[manifests.CanonicalID(ep.ID)] = ep
	}
	s := &catalog.Surface{Agent: "tester", Mode: catalog.ModeTools, Servers: servers}
	eng := mux.NewEngine(s, endpoints, os.LookupEnv, upstream.Options{})
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

func withID(ep manifests.Endpoint, id string) manifests.Endpoint {
	ep.ID = id
	return ep
}

// newServer builds a Server and collects its warnings.
func newServer(t *testing.T, eng Engine, opts Options) (*Server, *[]string) {
	t.Helper()
	var warnings []string
	opts.Warn = func(msg string) { warnings = append(warnings, msg) }
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := New(ctx, eng, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, &warnings
}

// testClient is an MCP client of a Server that counts tools/list_changed.
type testClient struct {
	*client.Client
	changed chan struct{}
	count   atomic.Int32
	init    *mcp.InitializeResult
	nextID  atomic.Int64
}

func (c *testClient) onNotification(n mcp.JSONRPCNotification) {
	// Handlers run on the client's read goroutine: only signal here.
	if n.Method == mcp.MethodNotificationToolsListChanged {
		c.count.Add(1)
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
}

// start starts c's transport and its notification handler, and closes c
// when the test ends; nothing is sent.
func (c *testClient) start(t *testing.T) {
	t.Helper()
	c.changed = make(chan struct{}, 1)
	c.OnNotification(c.onNotification)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
}

// initialize initializes a started c with the legacy handshake, which is
// what the raw requests of these tests speak.
func (c *testClient) initialize(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "toolsmode-test", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.init = res
}

// inProcess serves s over a pair of pipes, as `mcp serve` does over stdio,
// and connects mcp-go's client (another implementation than the server's)
// to it. The server must end cleanly when the client closes its side.
func inProcess(t *testing.T, s *Server) *testClient {
	t.Helper()
	tc, served := serve(t, context.Background(), s)
	t.Cleanup(func() {
		_ = tc.Close() // closes the server's input
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("ServeStdio did not return within 30s of its input closing")
		}
	})
	return tc
}

// serve is inProcess with the server's context given, and its end left
// to the caller: served receives what ServeStdio returned.
func serve(t *testing.T, ctx context.Context, s *Server) (tc *testClient, served <-chan error) {
	t.Helper()
	tc, served = serveStarted(t, ctx, s)
	tc.initialize(t)
	return tc, served
}

// serveStarted is serve with the client started but not initialized, for
// a test that speaks the handshake itself.
func serveStarted(t *testing.T, ctx context.Context, s *Server) (tc *testClient, served <-chan error) {
	t.Helper()
	toServer, fromServer, done := servePipes(ctx, s)
	tc = &testClient{Client: client.NewClient(transport.NewIO(fromServer, toServer, nil))}
	tc.start(t)
	return tc, done
}

// servePipes serves s over a pair of pipes under ctx: the client writes
// to toServer and reads fromServer, which ends when ServeStdio returns;
// done gets what it returned.
func servePipes(ctx context.Context, s *Server) (toServer *io.PipeWriter, fromServer *io.PipeReader, done <-chan error) {
	fromServer, serverOut := io.Pipe()
	serverIn, toServer := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := s.ServeStdio(ctx, serverIn, serverOut)
		_ = serverOut.Close()
		served <- err
	}()
	return toServer, fromServer, served
}

// raw sends one request and returns its result as the server sent it.
func (c *testClient) raw(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	res, err := c.rawE(method, params)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// rawE is raw for any goroutine: it returns the error.
func (c *testClient) rawE(method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(fmt.Sprintf("raw-%d", c.nextID.Add(1))),
		Method:  method,
		Params:  params,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result, nil
}

// rawTool is a tool of tools/list, its schemas as sent.
type rawTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func (c *testClient) tools(t *testing.T) map[string]rawTool {
	t.Helper()
	var res struct {
		Tools []rawTool `json:"tools"`
	}
	if err := json.Unmarshal(c.raw(t, "tools/list", map[string]any{}), &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]rawTool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// rawResult is a tools/call result with its parts as sent.
type rawResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	Meta              json.RawMessage   `json:"_meta"`
}

func (r rawResult) text() string {
	var parts []string
	for _, c := range r.Content {
		var item struct {
			Type, Text string
		}
		if json.Unmarshal(c, &item) == nil && item.Type == "text" {
			parts = append(parts, item.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (c *testClient) call(t *testing.T, name string, args any) rawResult {
	t.Helper()
	r, err := c.callE(name, args)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// callE is call for any goroutine: it returns the error.
func (c *testClient) callE(name string, args any) (rawResult, error) {
	var r rawResult
	raw, err := c.rawE("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("tools/call %s: %v in %s", name, err, raw)
	}
	return r, nil
}

// waitChanged waits for one tools/list_changed.
func (c *testClient) waitChanged(t *testing.T) {
	t.Helper()
	select {
	case <-c.changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 10s")
	}
}

func names(m map[string]rawTool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// sameJSON reports whether two JSON texts are the same bytes once
// insignificant whitespace is removed.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
