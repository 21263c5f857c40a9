package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
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

// Requests for input (elicitation/create) from real servers: server-everything
// over each transport, and an mcp-go server whose forms have defaults.

// elicitServerEnv makes the test binary an mcp-go stdio server with the
// tools of elicitServer.
const elicitServerEnv = "MCPSH_ELICIT_SERVER"

func init() {
	if os.Getenv(elicitServerEnv) == "" {
		return
	}
	if err := server.NewStdioServer(elicitServer()).Listen(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "elicit server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// profileSchema is a form whose only required field has a default, with
// a field without one and a default that does not fit its enum.
var profileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":   map[string]any{"type": "string", "default": "Ada Lovelace"},
		"age":    map[string]any{"type": "integer", "minimum": 0, "default": 36},
		"score":  map[string]any{"type": "number", "default": 95.5},
		"plan":   map[string]any{"type": "string", "enum": []string{"free", "pro"}, "default": "pro"},
		"notify": map[string]any{"type": "boolean", "default": true},
		"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"a", "b"}}, "default": []string{"b"}},
		"email":  map[string]any{"type": "string", "format": "email"},
		"colour": map[string]any{"type": "string", "enum": []string{"red", "blue"}, "default": "green"},
	},
	"required": []string{"name"},
}

// elicitServer has two tools that ask for input and report the answer as
// JSON: "profile" (profileSchema), "confirm" (a form with no fields) and
// "token" (a confirmation that quotes $ELICIT_TOKEN).
func elicitServer() *server.MCPServer {
	s := server.NewMCPServer("elicit", "1.0.0", server.WithToolCapabilities(true))
	ask := func(message string, schema any) server.ToolHandlerFunc {
		return func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{
				Params: mcp.ElicitationParams{Message: message, RequestedSchema: schema}})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			out, _ := json.Marshal(res.ElicitationResponse)
			return mcp.NewToolResultText(string(out)), nil
		}
	}
	s.AddTool(mcp.NewTool("profile"), ask("Your profile,\nplease", profileSchema))
	s.AddTool(mcp.NewTool("confirm"), ask("Delete everything?", map[string]any{"type": "object", "properties": map[string]any{}}))
	s.AddTool(mcp.NewTool("flood", mcp.WithNumber("n")), floodOfRequests)
	s.AddTool(mcp.NewTool("token"), ask("Is "+os.Getenv("ELICIT_TOKEN")+" yours?", map[string]any{"type": "object", "properties": map[string]any{}}))
	return s
}

func TestElicit_defaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ep   func(t *testing.T) manifests.Endpoint
	}{
		{"stdio", func(t *testing.T) manifests.Endpoint {
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			return manifests.Endpoint{ID: "elicit", Command: exe,
				Env: map[string]string{elicitServerEnv: "1", "GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")}}
		}},
		{"streamableHttp", func(t *testing.T) manifests.Endpoint {
			ts := httptest.NewServer(server.NewStreamableHTTPServer(elicitServer()))
			t.Cleanup(ts.Close)
			return manifests.Endpoint{ID: "elicit", URL: ts.URL + "/mcp", Type: "http"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rec journal[Elicitation]
			u := connect(t, tt.ep(t), Options{OnElicitation: rec.add})

			var got mcp.ElicitationResponse
			if err := json.Unmarshal([]byte(text(t, call(t, u, "profile", ""))), &got); err != nil {
				t.Fatal(err)
			}
			content, _ := json.Marshal(got.Content)
			const want = `{"age":36,"name":"Ada Lovelace","notify":true,"plan":"pro","score":95.5,"tags":["b"]}`
			if got.Action != mcp.ElicitationResponseActionAccept || string(content) != want {
				t.Errorf("the server got %s %s, want accept %s", got.Action, content, want)
			}

			// A bare confirmation is for a person to give.
			if txt := text(t, call(t, u, "confirm", "")); txt != `{"action":"decline"}` {
				t.Errorf("confirm: the server got %s", txt)
			}

			evs := rec.all()
			if len(evs) != 2 {
				t.Fatalf("OnElicitation was called %d times, want 2", len(evs))
			}
			if e := evs[0]; e.Server != "elicit" || e.Mode != "form" || e.Action != "accept" || e.Message != "Your profile, please" ||
				!slices.Equal(e.Fields, []string{"age", "name", "notify", "plan", "score", "tags"}) {
				t.Errorf("profile: %+v", e)
			}
			const line = `server elicit asked for input ("Your profile, please"); answered with its own defaults for age, name, notify, plan, score, tags`
			if s := evs[0].String(); s != line {
				t.Errorf("String() = %q, want %q", s, line)
			}
			if e := evs[1]; e.Action != "decline" || !strings.Contains(e.Reason, "only a person can accept it") {
				t.Errorf("confirm: %+v", e)
			}
		})
	}
}

// server-everything's trigger-elicitation-request asks for a name it has
// no default for: mcp declines at once on every transport, where it used
// to leave the server waiting (ten minutes, in server-everything's case).
func TestElicit_everything(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ep     func(t testing.TB) manifests.Endpoint
		policy ElicitationPolicy
		reason string
	}{
		{"stdio", testenv.EverythingStdio, ElicitDefaults, "required field name has no default"},
		{"streamableHttp", everythingOn("streamableHttp", "http"), ElicitDefaults, "required field name has no default"},
		{"sse", everythingOn("sse", "sse"), ElicitDefaults, "required field name has no default"},
		{"stdio/decline", testenv.EverythingStdio, ElicitDecline, "mcp is set to decline requests for input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rec journal[Elicitation]
			u := connect(t, tt.ep(t), Options{Elicitation: tt.policy, OnElicitation: rec.add})
			if _, ok := listTools(t, u)["trigger-elicitation-request"]; !ok {
				t.Fatal("server-everything lists no trigger-elicitation-request: the elicitation capability was not declared")
			}
			res := call(t, u, "trigger-elicitation-request", "")
			if res.IsError || !strings.Contains(text(t, res), "declined") {
				t.Errorf("result = %s, want the server to see a decline", res.Raw)
			}
			if !strings.Contains(string(res.Raw), `\"action\": \"decline\"`) {
				t.Errorf("raw result = %s, want action decline", res.Raw)
			}
			evs := rec.all()
			if len(evs) != 1 || evs[0].Action != "decline" || evs[0].Reason != tt.reason ||
				evs[0].Message != "Please provide inputs for the following fields:" {
				t.Errorf("OnElicitation got %+v", evs)
			}
			// The connection is still good.
			if got := text(t, call(t, u, "echo", `{"message":"after"}`)); got != "Echo: after" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

func TestAnswerElicitation(t *testing.T) {
	t.Parallel()
	// The form of the conformance suite's SEP-1034 scenario.
	sep1034 := map[string]any{"type": "object", "properties": map[string]any{
		"name":     map[string]any{"type": "string", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "default": 30},
		"score":    map[string]any{"type": "number", "default": 95.5},
		"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "default": true},
	}, "required": []string{}}
	prop := func(p map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{"f": p}, "required": required}
	}
	tests := []struct {
		name    string
		policy  ElicitationPolicy
		params  mcp.ElicitationParams
		content string // of an accept; "" for a decline
		reason  string
	}{
		{"SEP-1034 defaults", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: sep1034},
			`{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}`, ""},
		{"policy decline", ElicitDecline, mcp.ElicitationParams{RequestedSchema: sep1034}, "", "mcp is set to decline requests for input"},
		{"url mode", ElicitDefaults, mcp.ElicitationParams{Mode: "url", URL: "https://x.example", ElicitationID: "1"}, "", "mcp does not send a person to a URL"},
		{"required without default", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: prop(map[string]any{"type": "string"}, "f")}, "", "required field f has no default"},
		{"required fields without defaults", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []string{"b", "a", "b"}}},
			"", "required fields b, a have no default"},
		{"integer default not an integer", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: prop(map[string]any{"type": "integer", "default": 1.5}, "f")}, "", "required field f has no default"},
		{"default out of range", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: prop(map[string]any{"type": "number", "maximum": 10, "default": 11})}, "", "the form has no defaults to answer with, and only a person can accept it"},
		{"default of the wrong type", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: prop(map[string]any{"type": "boolean", "default": "yes"})}, "", "the form has no defaults to answer with, and only a person can accept it"},
		{"null default", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: prop(map[string]any{"type": "string", "default": nil})}, "", "the form has no defaults to answer with, and only a person can accept it"},
		{"titled enum", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: prop(map[string]any{"type": "string",
			"oneOf": []any{map[string]any{"const": "h1", "title": "One"}}, "default": "h1"})}, `{"f":"h1"}`, ""},
		{"schema not an object", ElicitDefaults, mcp.ElicitationParams{RequestedSchema: []string{"x"}}, "", "the requested schema is not an object schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ev := answerElicitation(tt.policy, tt.params)
			if tt.content == "" {
				if res.Action != mcp.ElicitationResponseActionDecline || res.Content != nil || ev.Action != "decline" || ev.Reason != tt.reason {
					t.Errorf("answer = %+v, %+v; want a decline because %q", res.ElicitationResponse, ev, tt.reason)
				}
				return
			}
			content, _ := json.Marshal(res.Content)
			if res.Action != mcp.ElicitationResponseActionAccept || string(content) != tt.content || ev.Action != "accept" {
				t.Errorf("answer = %s %s, %+v; want accept %s", res.Action, content, ev, tt.content)
			}
		})
	}
}

func TestSSETap(t *testing.T) {
	t.Parallel()
	stream := ": a comment\r\n" +
		"event: endpoint\r\ndata: /message?x=1\r\n\r\n" +
		"data: {\"a\":\n" +
		"data: 1}\n\n" +
		"event: message\rdata: two\r\r" +
		"id: 7\nretry: 100\ndata:three\n\n" +
		"data: " + strings.Repeat("x", 40) + "\n\n" +
		"event: other\ndata: skipped\n\n" +
		"data: unfinished"
	for _, chunk := range []int{1, 3, 7, len(stream)} {
		var got []string
		tap := &sseTap{max: 32, onMessage: func(b []byte) { got = append(got, string(b)) }}
		for s := stream; s != ""; {
			n := min(chunk, len(s))
			tap.feed([]byte(s[:n]))
			s = s[n:]
		}
		want := []string{"{\"a\":\n1}", "two", "three"}
		if !slices.Equal(got, want) {
			t.Errorf("chunks of %d: messages %q, want %q", chunk, got, want)
		}
	}
}

// The GET stream that carries requests outside a tool call is not asked
// for again, every second, of a server that refuses it with a client error.
func TestHTTP_refusedStreamNotRetried(t *testing.T) {
	t.Parallel()
	h := server.NewStreamableHTTPServer(elicitServer())
	var mu sync.Mutex
	gets := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			gets++
			mu.Unlock()
			http.Error(w, "no stream for you", http.StatusBadRequest)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	u := connect(t, manifests.Endpoint{ID: "elicit", URL: ts.URL + "/mcp", Type: "http"}, Options{})
	listTools(t, u)
	// mcp-go waits a second between attempts.
	time.Sleep(1600 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if gets != 1 {
		t.Errorf("the GET stream was asked for %d times, want once", gets)
	}
}
