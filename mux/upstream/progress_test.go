package upstream

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/internal/testenv"
)

func callHooked(t *testing.T, u Conn, h *CallHooks, name, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := u.CallTool(WithCallHooks(ctx, h), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return text(t, res)
}

// TestConn_CallToolProgress: a call whose hooks ask for progress gets
// server-everything's reports, in order and with their total, over each
// transport.
func TestConn_CallToolProgress(t *testing.T) {
	t.Parallel()
	tests := everythingTransports
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := connect(t, tt.ep(t), Options{})
			var log journal[Progress]
			got := callHooked(t, u, &CallHooks{OnProgress: log.add}, "trigger-long-running-operation", `{"duration":0.4,"steps":4}`)
			if !strings.HasPrefix(got, "Long running operation completed") {
				t.Errorf("result = %q", got)
			}
			want := []Progress{{Progress: 1, Total: 4}, {Progress: 2, Total: 4}, {Progress: 3, Total: 4}, {Progress: 4, Total: 4}}
			if reports := log.all(); !slices.Equal(reports, want) {
				t.Errorf("progress = %v, want %v", reports, want)
			}
		})
	}
}

// TestConn_CallToolMeta: the caller's _meta keys reach the server as
// given, except its progressToken, which the connection replaces with its
// own; progress messages come back under the caller's hooks.
func TestConn_CallToolMeta(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeMeta), Options{})
	meta := map[string]json.RawMessage{
		"progressToken":     json.RawMessage(`"caller-token"`),
		"com.example/trace": json.RawMessage(`{"id":7,"tags":["a"]}`),
		// What a 2026-07-28 client says of itself is not this connection's.
		"io.modelcontextprotocol/clientInfo": json.RawMessage(`{"name":"client","version":"1"}`),
	}
	var log journal[Progress]
	var sent map[string]json.RawMessage
	if err := json.Unmarshal([]byte(callHooked(t, u, &CallHooks{Meta: meta, OnProgress: log.add}, "meta", `{}`)), &sent); err != nil {
		t.Fatal(err)
	}
	if got := string(sent["com.example/trace"]); got != `{"id":7,"tags":["a"]}` {
		t.Errorf("com.example/trace = %s, want it as given (all of _meta: %v)", got, sent)
	}
	if tok := string(sent["progressToken"]); !strings.HasPrefix(tok, `"mcp-progress-`) {
		t.Errorf("progressToken = %s, want the connection's own", tok)
	}
	if _, ok := sent["io.modelcontextprotocol/clientInfo"]; ok {
		t.Errorf("the caller's clientInfo was sent: %v", sent)
	}

	// Without OnProgress the caller's token is not sent at all.
	sent = nil
	if err := json.Unmarshal([]byte(callHooked(t, u, &CallHooks{Meta: meta}, "meta", `{}`)), &sent); err != nil {
		t.Fatal(err)
	}
	if _, ok := sent["progressToken"]; ok || len(sent) != 1 {
		t.Errorf("_meta without OnProgress = %v, want only com.example/trace", sent)
	}

	// Messages come with the reports, without the connection's secrets.
	secrets := &redact.Set{}
	secrets.Add("step 2")
	u = connect(t, testenv.FakeServer(t, testenv.ModeMeta), Options{Secrets: secrets})
	callHooked(t, u, &CallHooks{OnProgress: log.add}, "progress", `{"steps":2,"ms":10}`)
	want := []Progress{{Progress: 1, Total: 2, Message: "step 1"}, {Progress: 2, Total: 2, Message: "[redacted]"}}
	if got := log.all(); !slices.Equal(got, want) {
		t.Errorf("progress = %v, want %v", got, want)
	}
}
