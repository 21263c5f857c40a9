package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// fakeHTTP serves the fake tool set in this process over streamable HTTP
// ("http") or SSE ("sse"), counting requests and those that carried the
// header X-Api-Key: k-123456.
type fakeHTTP struct {
	ep             manifests.Endpoint
	ts             *httptest.Server
	total, withKey atomic.Int64
}

func newFakeHTTP(t *testing.T, typ string) *fakeHTTP {
	t.Helper()
	f := &fakeHTTP{}
	s := testenv.FakeMCPServer()
	var h http.Handler
	var sse *server.SSEServer
	path := "/mcp"
	if typ == "sse" {
		sse = server.NewSSEServer(s)
		h, path = sse, "/sse"
	} else {
		h = server.NewStreamableHTTPServer(s)
	}
	f.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.total.Add(1)
		if r.Header.Get("X-Api-Key") == "k-123456" {
			f.withKey.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	if sse != nil {
		server.WithBaseURL(f.ts.URL)(sse)
	}
	t.Cleanup(f.ts.Close)
	f.ep = manifests.Endpoint{ID: "fake", URL: f.ts.URL + path, Type: typ, Headers: map[string]string{"X-Api-Key": "k-123456"}}
	return f
}

func TestHTTP_fake(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"http", "sse"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			f := newFakeHTTP(t, typ)
			u := connect(t, f.ep, Options{})
			requireCancelReachesServer(t, u)

			// Headers go with every request.
			if f.total.Load() < 3 || f.withKey.Load() != f.total.Load() {
				t.Errorf("%d of %d requests carried the header", f.withKey.Load(), f.total.Load())
			}
			_, err := u.CallTool(context.Background(), "rpcerr", nil)
			var rpc *RPCError
			if !errors.As(err, &rpc) {
				t.Errorf("rpcerr: %v, want *RPCError", err)
			}
			if res := call(t, u, "structured", ""); string(res.Structured) != `{"n":12345678901234567890}` {
				t.Errorf("structured = %s", res.Structured)
			}
		})
	}
}

func TestHTTP_tooLarge(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"http", "sse"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			u := connect(t, newFakeHTTP(t, typ).ep, Options{MaxMessageBytes: 1 << 20})
			if got := text(t, call(t, u, "big", `{"bytes":500000}`)); len(got) != 500000 {
				t.Errorf("got %d bytes", len(got))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := u.CallTool(ctx, "big", json.RawMessage(`{"bytes":2000000}`))
			asUnavailable(t, err)
			if !errors.Is(err, ErrMessageTooLarge) {
				t.Errorf("err = %v, want ErrMessageTooLarge", err)
			}
			if typ == "http" {
				// Only that request failed.
				call(t, u, "echo", `{"message":"after"}`)
			}
		})
	}
}

// When the SSE stream goes, waiting and later calls fail at once.
func TestSSE_streamLost(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t, "sse")
	u := connect(t, f.ep, Options{})
	done := make(chan error, 1)
	go func() {
		_, err := u.CallTool(context.Background(), "hang", nil)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	f.ts.CloseClientConnections()
	select {
	case err := <-done:
		asUnavailable(t, err)
	case <-time.After(5 * time.Second):
		t.Fatalf("a call waiting on a lost SSE stream did not fail")
	}
	select {
	case <-u.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("Done is not closed")
	}
	_, err := u.CallTool(context.Background(), "echo", nil)
	asUnavailable(t, err)
}

// Connect reports an HTTP error status without repeating header values,
// URL secrets or the response body, and does not fall back to SSE on
// 401/403/5xx.
func TestConnect_httpStatus(t *testing.T) {
	t.Parallel()
	for _, status := range []int{401, 403, 404, 500, 503} {
		for _, typ := range []string{"http", "sse", ""} {
			t.Run(fmt.Sprintf("%d/%q", status, typ), func(t *testing.T) {
				t.Parallel()
				var gets atomic.Int64
				ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet {
						gets.Add(1)
					}
					w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
					http.Error(w, "body-secret-k-123456 Bearer tok-abcdef", status)
				}))
				defer ts.Close()
				ep := manifests.Endpoint{ID: "remote", URL: ts.URL + "/mcp?key=q-secret-42", Type: typ,
					Headers: map[string]string{"Authorization": "Bearer tok-abcdef"}}
				_, err := Connect(context.Background(), ep, Options{})
				ue := asUnavailable(t, err)
				msg := ue.Error()
				if !strings.Contains(msg, fmt.Sprintf("HTTP %d", status)) {
					t.Errorf("error lacks the status: %s", msg)
				}
				for _, secret := range []string{"tok-abcdef", "q-secret-42", "body-secret"} {
					if strings.Contains(msg, secret) {
						t.Errorf("error repeats %q: %s", secret, msg)
					}
				}
				fellBack := gets.Load() > 0
				if want := typ == "sse" || typ == "" && status == 404; fellBack != want {
					t.Errorf("SSE tried = %v, want %v (%s)", fellBack, want, msg)
				}
				if status == 401 {
					var auth *transport.AuthorizationRequiredError
					if !errors.As(err, &auth) {
						t.Errorf("a 401 does not unwrap to AuthorizationRequiredError: %v", err)
					}
				}
			})
		}
	}
}

func TestConnect_unreachable(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL + "/mcp"
	ts.Close()
	for _, typ := range []string{"http", "sse", ""} {
		_, err := Connect(context.Background(), manifests.Endpoint{ID: "gone", URL: url, Type: typ}, Options{})
		asUnavailable(t, err)
	}
}

func TestTransportOf(t *testing.T) {
	tests := []struct {
		ep   manifests.Endpoint
		want manifests.Transport
	}{
		{manifests.Endpoint{Command: "x"}, manifests.TransportStdio},
		{manifests.Endpoint{URL: "http://h"}, manifests.TransportAuto},
		{manifests.Endpoint{URL: "http://h", Type: "http"}, manifests.TransportHTTP},
		{manifests.Endpoint{URL: "http://h", Type: "streamable-http"}, manifests.TransportHTTP},
		{manifests.Endpoint{URL: "http://h", Type: "streamableHttp"}, manifests.TransportHTTP},
		{manifests.Endpoint{URL: "http://h", Type: "sse"}, manifests.TransportSSE},
		{manifests.Endpoint{URL: "http://h", Type: "websocket"}, ""},
		{manifests.Endpoint{URL: "http://h", Command: "x"}, ""},
		{manifests.Endpoint{}, ""},
	}
	for _, tt := range tests {
		got, err := transportOf(tt.ep)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("transportOf(%+v) = %q, %v; want %q", tt.ep, got, err, tt.want)
		}
	}
}
