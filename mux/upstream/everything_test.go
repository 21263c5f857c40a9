package upstream

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// Tests against servers nobody here wrote: server-everything over each
// transport, and server-memory.

func TestConnect_everything(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ep   func(t testing.TB) manifests.Endpoint
		want manifests.Transport
	}{
		{"stdio", testenv.EverythingStdio, manifests.TransportStdio},
		{"streamableHttp", everythingOn("streamableHttp", "http"), manifests.TransportHTTP},
		{"sse", everythingOn("sse", "sse"), manifests.TransportSSE},
		{"auto/streamableHttp", everythingOn("streamableHttp", ""), manifests.TransportHTTP},
		// A url without type against a legacy SSE server falls back to SSE.
		{"auto/sse", func(t testing.TB) manifests.Endpoint {
			return manifests.Endpoint{ID: "everything", URL: testenv.EverythingHTTP(t, "sse")}
		}, manifests.TransportSSE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := connect(t, tt.ep(t), Options{})
			if u.Transport() != tt.want {
				t.Errorf("transport = %s, want %s", u.Transport(), tt.want)
			}
			requireEverything(t, u)
		})
	}
}

func requireEverything(t *testing.T, u *conn) {
	t.Helper()
	tools := listTools(t, u)
	echo, ok := tools["echo"]
	if !ok {
		t.Fatalf("no echo among %d tools", len(tools))
	}
	if echo.Title != "Echo Tool" || echo.Description != "Echoes back the input string" || echo.Server != "everything" {
		t.Errorf("echo = %+v", echo)
	}
	// Fields mcp-go's typed schema drops survive in the raw bytes.
	for _, want := range []string{`"$schema"`, `"description":"Message to echo"`} {
		if !strings.Contains(string(echo.InputSchema), want) {
			t.Errorf("echo's input schema lacks %s: %s", want, echo.InputSchema)
		}
	}
	if !strings.Contains(string(echo.Raw), `"annotations"`) {
		t.Errorf("echo's raw description lacks its annotations: %s", echo.Raw)
	}
	if _, ok := tools["get-structured-content"]; !ok || len(tools["get-structured-content"].OutputSchema) == 0 {
		t.Errorf("get-structured-content has no output schema")
	}

	if got := text(t, call(t, u, "echo", `{"message":"hi"}`)); got != "Echo: hi" {
		t.Errorf("echo = %q", got)
	}
	// Invalid arguments are a tool error, not a failed call.
	if res := call(t, u, "echo", `{}`); !res.IsError {
		t.Errorf("echo without message: IsError = false: %s", res.Raw)
	}
	res := call(t, u, "get-structured-content", `{"location":"Chicago"}`)
	if len(res.Structured) == 0 || res.IsError {
		t.Errorf("get-structured-content: %s", res.Raw)
	}
	// A per-call deadline shorter than the tool gives an unavailable error
	// and leaves the connection usable.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := u.CallTool(ctx, "trigger-long-running-operation", []byte(`{"duration":2,"steps":2}`))
	asUnavailable(t, err)
	call(t, u, "echo", `{"message":"after the timeout"}`)
}

func TestConnect_memory(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.Memory(t), Options{})
	tools := listTools(t, u)
	for _, name := range []string{"create_entities", "read_graph", "search_nodes"} {
		if _, ok := tools[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
	call(t, u, "create_entities", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`)
	res := call(t, u, "search_nodes", `{"query":"Ada"}`)
	if !strings.Contains(string(res.Raw), "wrote the first program") {
		t.Errorf("search_nodes: %s", res.Raw)
	}
}
