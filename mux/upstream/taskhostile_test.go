package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/manifests"
)

// hostileTaskServer is a hand-written streamable HTTP server that declares
// task-augmented tools/call and answers tools/call, tasks/get and
// tasks/result with the results given; the endpoint carries a credential
// in a header.
func hostileTaskServer(t *testing.T, results map[string]string) manifests.Endpoint {
	t.Helper()
	return taskServerFunc(t, func(method string, _ json.RawMessage) (string, bool) {
		result, ok := results[method]
		return result, ok
	})
}

// taskServerFunc is hostileTaskServer answering each request with what
// answer gives for its method and parameters; no answer is -32601.
func taskServerFunc(t *testing.T, answer func(method string, params json.RawMessage) (string, bool)) manifests.Endpoint {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no stream", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result, ok := answer(req.Method, req.Params)
		if req.Method == "tools/list" && !ok {
			// What a call's Mcp-Param-* headers are made from, when the
			// caller gives no schema.
			result, ok = `{"tools":[]}`, true
		}
		if req.Method == "initialize" {
			result, ok = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"hostile","version":"1"}}`, true
		}
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"no"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`))
	}))
	t.Cleanup(ts.Close)
	return manifests.Endpoint{ID: "hostile", URL: ts.URL + "/mcp", Type: "http", Headers: map[string]string{"X-Api-Key": "k-secret-4242"}}
}

// A caller that gives up while the server is still creating its task
// waits for the task, a little, and cancels it with tasks/cancel: a
// notifications/cancelled of the tools/call would not stop a task the
// server has already made.
func TestCallTool_taskCancelledWhileCreated(t *testing.T) {
	t.Parallel()
	calling := make(chan struct{})
	gaveUp := make(chan struct{})
	cancelled := make(chan string, 1)
	ep := taskServerFunc(t, func(method string, params json.RawMessage) (string, bool) {
		switch method {
		case "tools/call":
			close(calling)
			<-gaveUp
			time.Sleep(200 * time.Millisecond)
			return `{"task":{"taskId":"t-late","status":"working"}}`, true
		case "tasks/cancel":
			var p struct {
				TaskID string `json:"taskId"`
			}
			_ = json.Unmarshal(params, &p)
			cancelled <- p.TaskID
			return `{"taskId":"` + p.TaskID + `","status":"cancelled"}`, true
		}
		return "", false
	})
	u := connect(t, ep, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-calling
		cancel()
		close(gaveUp)
	}()
	_, err := taskCall(ctx, u, "research", `{}`, newStatuses())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want cancelled", err)
	}
	select {
	case id := <-cancelled:
		if id != "t-late" {
			t.Errorf("tasks/cancel of %q, want t-late", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the task created after the caller gave up was never cancelled")
	}
}

// A created task that is not a task (its id a number, or empty) is an
// invalid answer, not an empty result that passes for the tool's.
func TestCallTool_taskInvalidCreated(t *testing.T) {
	t.Parallel()
	for _, created := range []string{
		`{"task":{"taskId":7,"status":"working"}}`,
		`{"task":{"taskId":"","status":"working"}}`,
		`{"task":"t1"}`,
	} {
		ep := hostileTaskServer(t, map[string]string{"tools/call": created})
		u := connect(t, ep, Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := taskCall(ctx, u, "research", `{}`, newStatuses())
		cancel()
		if err == nil || !strings.Contains(err.Error(), "invalid task") {
			t.Errorf("created %s: result %+v, err %v; want an invalid task", created, res, err)
		}
	}
}

// A task's status is the server's text like its message: it is reported
// without the connection's secrets.
func TestCallTool_taskStatusRedacted(t *testing.T) {
	t.Parallel()
	ep := hostileTaskServer(t, map[string]string{
		"tools/call":   `{"task":{"taskId":"t1","status":"working k-secret-4242","pollInterval":0}}`,
		"tasks/get":    `{"taskId":"t1","status":"completed"}`,
		"tasks/result": `{"content":[{"type":"text","text":"done"}]}`,
	})
	u := connect(t, ep, Options{})
	st := newStatuses()
	ctx := WithCallHooks(WithTaskSupport(context.Background(), catalog.TaskRequired), &CallHooks{OnProgress: st.on})
	if _, err := u.CallTool(ctx, "research", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	for _, m := range st.messages() {
		if strings.Contains(m, "k-secret-4242") {
			t.Errorf("a status reported the credential: %q", m)
		}
	}
}

// A task id is the server's text: an invalid tasks/get names it without
// the connection's secrets.
func TestCallTool_taskGetErrorRedacted(t *testing.T) {
	t.Parallel()
	ep := hostileTaskServer(t, map[string]string{
		"tools/call": `{"task":{"taskId":"task-k-secret-4242","status":"working","pollInterval":0}}`,
		"tasks/get":  `{"taskId":"task-k-secret-4242"}`,
	})
	u := connect(t, ep, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := taskCall(ctx, u, "research", `{}`, newStatuses())
	if err == nil || !strings.Contains(err.Error(), "invalid task") {
		t.Fatalf("CallTool = %v, want an invalid task", err)
	}
	if strings.Contains(err.Error(), "k-secret-4242") {
		t.Errorf("the error names the credential: %v", err)
	}
}

// A task's status message becomes progress clipped: a server cannot make
// every report carry a page of text.
func TestCallTool_taskStatusClipped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 5000)
	ep := hostileTaskServer(t, map[string]string{
		"tools/call":   `{"task":{"taskId":"t1","status":"working","statusMessage":"` + long + `","pollInterval":0}}`,
		"tasks/get":    `{"taskId":"t1","status":"completed"}`,
		"tasks/result": `{"content":[{"type":"text","text":"done"}]}`,
	})
	u := connect(t, ep, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := newStatuses()
	if _, err := taskCall(ctx, u, "research", `{}`, st); err != nil {
		t.Fatal(err)
	}
	msgs := st.messages()
	if len(msgs) == 0 || !strings.HasPrefix(msgs[0], "working: éé") || !strings.HasSuffix(msgs[0], clip.Ellipsis) {
		t.Fatalf("statuses = %.80q, want the first clipped", msgs)
	}
	if n := utf8.RuneCountInString(msgs[0]); n > maxStatusText {
		t.Errorf("the status has %d runes, want at most %d", n, maxStatusText)
	}
}
