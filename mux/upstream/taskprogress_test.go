package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// streamingTaskServer is a hand-written streamable HTTP server that
// declares task-augmented tools/call and answers each request with an
// event stream: first the notifications send gives for the request's
// method (and the progress token its tools/call carried), then the result
// results gives. meta is the _meta of the last tools/call.
func streamingTaskServer(t *testing.T, results func(method string, n int) string, send func(method string, n int, token json.RawMessage) []string) (_ manifests.Endpoint, meta func() map[string]json.RawMessage) {
	t.Helper()
	var mu sync.Mutex
	var token json.RawMessage
	var callMeta map[string]json.RawMessage
	count := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no stream", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		mu.Lock()
		if req.Method == "tools/call" {
			token, callMeta = req.Params.Meta["progressToken"], req.Params.Meta
		}
		count[req.Method]++
		n, tok := count[req.Method], token
		mu.Unlock()
		if req.Method == "initialize" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"streaming","version":"1"}}}`, req.ID)
			return
		}
		result := `{"tools":[]}`
		if req.Method != "tools/list" {
			result = results(req.Method, n)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, note := range send(req.Method, n, tok) {
			_, _ = fmt.Fprintf(w, "event: message\ndata: %s\n\n", note)
			w.(http.Flusher).Flush()
		}
		_, _ = fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result)
	}))
	t.Cleanup(ts.Close)
	return manifests.Endpoint{ID: "streaming", URL: ts.URL + "/mcp", Type: "http"}, func() map[string]json.RawMessage {
		mu.Lock()
		defer mu.Unlock()
		return callMeta
	}
}

// A task call whose server reports progress of its own while its task's
// status changes reports both as one stream: never two reports at once,
// and the progress of each above the last.
func TestCallTool_taskProgressOrdered(t *testing.T) {
	t.Parallel()
	results := func(method string, n int) string {
		switch {
		case method == "tools/call":
			return `{"task":{"taskId":"t1","status":"working","statusMessage":"started","pollInterval":0}}`
		case method == "tasks/get" && n < 3:
			return fmt.Sprintf(`{"taskId":"t1","status":"working","statusMessage":"poll %d"}`, n)
		case method == "tasks/get":
			return `{"taskId":"t1","status":"completed"}`
		}
		return `{"content":[{"type":"text","text":"done"}]}`
	}
	step := 0
	send := func(method string, n int, token json.RawMessage) []string {
		var out []string
		for range 3 {
			step++
			out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"message":"step %d"}}`, token, step, step))
		}
		if method == "tasks/get" {
			out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working","statusMessage":"note %d"}}`, n))
		}
		return out
	}
	ep, _ := streamingTaskServer(t, results, send)
	u := connect(t, ep, Options{})

	var busy atomic.Int32
	var mu sync.Mutex
	var got []Progress
	on := func(p Progress) {
		if busy.Add(1) > 1 {
			t.Errorf("two reports at once (%+v)", p)
		}
		time.Sleep(5 * time.Millisecond) // a slow client widens the window
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		busy.Add(-1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = WithCallHooks(WithTaskSupport(ctx, catalog.TaskRequired), &CallHooks{OnProgress: on})
	res, err := u.CallTool(ctx, "research", json.RawMessage(`{}`))
	if err != nil || text(t, res) != "done" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	var msgs []string
	for i, p := range got {
		msgs = append(msgs, p.Message)
		if i > 0 && p.Progress <= got[i-1].Progress {
			t.Errorf("report %d (%+v) is not above report %d (%+v)", i, p, i-1, got[i-1])
		}
	}
	all := strings.Join(msgs, "|")
	for _, want := range []string{"working: started", "working: poll 1", "step 1", "step 9", "completed"} {
		if !strings.Contains(all, want) {
			t.Errorf("reports %q lack %q", msgs, want)
		}
	}
}

// A status takes the next progress: the next whole number while progress
// counts, the least number above the last against a total; a server's
// report that is not above the last is raised above it.
func TestProgressOrder_next(t *testing.T) {
	var o progressOrder
	status := func(msg string) sinkReport { return sinkReport{Progress: Progress{Message: msg}, status: true} }
	server := func(p, total float64) sinkReport { return sinkReport{Progress: Progress{Progress: p, Total: total}} }
	for i, tt := range []struct {
		in          sinkReport
		want, total float64
	}{
		{status("working"), 1, 0},
		{server(0.5, 0), 2, 0},
		{server(3, 0), 3, 0},
		{status("working: more"), 4, 0},
		{server(5, 10), 5, 10},
		{status("working: again"), math.Nextafter(5, 6), 10},
		{server(6, 10), 6, 10},
		{server(6, 10), math.Nextafter(6, 7), 10},
	} {
		got := o.next(tt.in)
		if got.Progress != tt.want || got.Total != tt.total || got.Message != tt.in.Message {
			t.Errorf("%d: next(%+v) = %+v, want progress %v of %v", i, tt.in, got, tt.want, tt.total)
		}
	}
}

// A task started for a caller of its own carries the caller's _meta, as a
// plain call does, with the connection's progress token; the server's
// progress for the task reaches the caller until the task ends.
func TestConn_StartTaskMeta(t *testing.T) {
	t.Parallel()
	results := func(method string, n int) string {
		switch method {
		case "tools/call":
			return `{"task":{"taskId":"t1","status":"working"}}`
		case "tasks/get":
			return `{"taskId":"t1","status":"working"}`
		}
		return `{"content":[{"type":"text","text":"done"}]}`
	}
	step := 0
	send := func(method string, n int, token json.RawMessage) []string {
		step++
		return []string{fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":3}}`, token, step)}
	}
	ep, sentMeta := streamingTaskServer(t, results, send)
	u := connect(t, ep, Options{})
	var log journal[Progress]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = WithCallHooks(ctx, &CallHooks{OnProgress: log.add, Meta: map[string]json.RawMessage{
		"progressToken":     json.RawMessage(`"caller-token"`),
		"com.example/trace": json.RawMessage(`{"id":7}`),
	}})
	_, id, err := u.StartTask(ctx, "research", json.RawMessage(`{}`), nil)
	if err != nil || id != "t1" {
		t.Fatalf("StartTask = %q, %v", id, err)
	}
	sent := sentMeta()
	if got := string(sent["com.example/trace"]); got != `{"id":7}` {
		t.Errorf("com.example/trace = %s, want it as given (all of _meta: %v)", got, sent)
	}
	if tok := string(sent["progressToken"]); !strings.HasPrefix(tok, `"mcp-progress-`) {
		t.Errorf("progressToken = %s, want the connection's own", tok)
	}
	for _, method := range []string{"tasks/get", "tasks/result"} {
		if _, err := u.TaskRequest(context.Background(), method, "t1"); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	want := []Progress{{Progress: 1, Total: 3}, {Progress: 2, Total: 3}, {Progress: 3, Total: 3}}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(log.all(), want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := log.all(); !slices.Equal(got, want) {
		t.Errorf("progress = %v, want %v", got, want)
	}
	// The task has ended: its token is no longer followed.
	c := u
	c.mu.Lock()
	left := len(c.progress)
	c.mu.Unlock()
	c.tasks.mu.Lock()
	kept := len(c.tasks.sinks)
	c.tasks.mu.Unlock()
	if left != 0 || kept != 0 {
		t.Errorf("after tasks/result: %d tokens followed, %d sinks kept; want none", left, kept)
	}
}
