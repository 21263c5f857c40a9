package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// mrtrServer is an mcp-go server over streamable HTTP whose tools
// "confirm" and "no_state" answer as a 2026-07-28 server does (SEP-2322):
// the first call of each asks for input (input_required), and a retry
// carrying the answers completes. "confirm" sends a request state unique
// to each call and checks it comes back exactly, on a fresh id, with the
// answer; "no_state" sends none and checks none comes back.
type mrtrServer struct {
	ep manifests.Endpoint

	mu     sync.Mutex
	states map[string]string // requestState sent → the id of the first round
	bad    []string          // what the retries got wrong
}

func newMRTRServer(t *testing.T) *mrtrServer {
	t.Helper()
	s := server.NewMCPServer("mrtr", "1.0.0", server.WithToolCapabilities(true))
	for _, name := range []string{"confirm", "no_state", "forever", "sample"} {
		s.AddTool(mcp.NewTool(name, mcp.WithNumber("n")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the handler is never reached"), nil
		})
	}
	m := &mrtrServer{states: map[string]string{}}
	h := server.NewStreamableHTTPServer(s)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name           string                     `json:"name"`
				Arguments      struct{ N int }            `json:"arguments"`
				InputResponses map[string]json.RawMessage `json:"inputResponses"`
				RequestState   *string                    `json:"requestState"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		result := m.answer(string(msg.ID), msg.Params.Name, msg.Params.Arguments.N, msg.Params.InputResponses, msg.Params.RequestState)
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}))
	t.Cleanup(ts.Close)
	m.ep = manifests.Endpoint{ID: "mrtr", URL: ts.URL + "/mcp", Type: "http"}
	return m
}

// answer is the result of one round of tool's call n.
func (m *mrtrServer) answer(id, tool string, n int, responses map[string]json.RawMessage, state *string) any {
	m.mu.Lock()
	defer m.mu.Unlock()
	if tool == "sample" {
		return map[string]any{"resultType": "input_required", "inputRequests": map[string]any{
			"llm": map[string]any{"method": "sampling/createMessage", "params": map[string]any{"messages": []any{}, "maxTokens": 1}}}}
	}
	if responses == nil || tool == "forever" {
		ask := map[string]any{"ok": map[string]any{"method": "elicitation/create", "params": map[string]any{
			"message": "Confirm?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
				"confirmed": map[string]any{"type": "boolean", "default": true}}},
		}}}
		res := map[string]any{"resultType": "input_required", "inputRequests": ask}
		if tool == "confirm" {
			// Spaces and escapes that a client re-encoding it would lose.
			st := fmt.Sprintf(`{ "n": %d, "note": "\u00e9" }`, n)
			m.states[st] = id
			res["requestState"] = st
		}
		return res
	}
	var ok struct {
		Action  string
		Content struct{ Confirmed bool }
	}
	if err := json.Unmarshal(responses["ok"], &ok); err != nil || ok.Action != "accept" || !ok.Content.Confirmed {
		m.bad = append(m.bad, fmt.Sprintf("%s %d: input responses %s", tool, n, responses["ok"]))
	}
	switch {
	case tool == "no_state" && state != nil:
		m.bad = append(m.bad, fmt.Sprintf("no_state %d: a requestState came back that was never sent: %q", n, *state))
	case tool == "confirm" && state == nil:
		m.bad = append(m.bad, fmt.Sprintf("confirm %d: no requestState came back", n))
	case tool == "confirm":
		first, sent := m.states[*state]
		want := fmt.Sprintf(`{ "n": %d, "note": "\u00e9" }`, n)
		if !sent || *state != want {
			m.bad = append(m.bad, fmt.Sprintf("confirm %d: requestState %q came back, want %q", n, *state, want))
		}
		if first == id {
			m.bad = append(m.bad, fmt.Sprintf("confirm %d: the retry reuses the id %s", n, id))
		}
	}
	return map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("%s %d done", tool, n)}}}
}

func TestMultiRoundTrip(t *testing.T) {
	t.Parallel()
	srv := newMRTRServer(t)
	u := connect(t, srv.ep, Options{})
	// Parallel calls, each with its own rounds.
	var wg sync.WaitGroup
	results := make([]*catalog.Result, 8)
	errs := make([]error, len(results))
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool := []string{"confirm", "no_state"}[i%2]
			results[i], errs[i] = u.CallTool(context.Background(), tool, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
		}()
	}
	wg.Wait()
	for i, res := range results {
		if errs[i] != nil {
			t.Errorf("call %d: %v", i, errs[i])
			continue
		}
		if got, want := text(t, res), fmt.Sprintf("%s %d done", []string{"confirm", "no_state"}[i%2], i); got != want {
			t.Errorf("call %d = %q, want %q", i, got, want)
		}
	}

	// A server that never stops asking, or asks for what mcp does not
	// offer, fails the call.
	for tool, want := range map[string]string{
		"forever": "server mrtr asked for input 10 times for one tools/call",
		"sample":  "tools/call: server mrtr asked for sampling/createMessage, which mcp does not offer",
	} {
		if _, err := u.CallTool(context.Background(), tool, json.RawMessage(`{}`)); err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", tool, err, want)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, b := range srv.bad {
		t.Error(b)
	}
}
