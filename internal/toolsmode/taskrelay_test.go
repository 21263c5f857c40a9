package toolsmode

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/mux"
)

// taskClient is a client of a Server that declared tasks in its
// initialize, and the task status notifications it received.
type taskClient struct {
	*testClient
	mu       sync.Mutex
	statuses []json.RawMessage
}

// tasksClient serves s and initializes a client that declares tasks.
func tasksClient(t *testing.T, s *Server) *taskClient {
	t.Helper()
	tc, served := serveStarted(t, context.Background(), s)
	c := &taskClient{testClient: tc}
	tc.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/tasks/status" {
			b, _ := json.Marshal(n.Params.AdditionalFields)
			c.mu.Lock()
			c.statuses = append(c.statuses, b)
			c.mu.Unlock()
		}
	})
	raw := tc.raw(t, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{}}},
		"clientInfo":      map[string]any{"name": "tasks-test", "version": "1"},
	})
	if err := json.Unmarshal(raw, &tc.init); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tc.GetTransport().SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/initialized"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = tc.Close()
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			t.Error("ServeStdio did not return within 30s of its input closing")
		}
	})
	return c
}

// taskOf is a CreateTaskResult's task, or a tasks/get result.
type taskOf struct {
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

func (c *taskClient) start(t *testing.T, name string, args any) taskOf {
	t.Helper()
	raw := c.raw(t, "tools/call", map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": 60000}})
	var res struct{ Task *taskOf }
	if err := json.Unmarshal(raw, &res); err != nil || res.Task == nil || res.Task.TaskID == "" {
		t.Fatalf("tools/call with a task = %s", raw)
	}
	return *res.Task
}

func (c *taskClient) get(t *testing.T, id string) taskOf {
	t.Helper()
	var got taskOf
	if err := json.Unmarshal(c.raw(t, "tasks/get", map[string]any{"taskId": id}), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// A client that declares tasks is offered them: the capability, the
// tool's taskSupport, a task of its own id that it polls and whose result
// it fetches, and tasks/list of its tasks.
func TestServer_tasksRelayed(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "everything", Tools: []string{"simulate-research-query"}},
	}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{})
	c := tasksClient(t, s)

	const name = "everything__simulate_research_query"
	caps, _ := json.Marshal(c.init.Capabilities.Tasks)
	if !sameJSON(caps, []byte(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)) {
		t.Errorf("capabilities.tasks = %s", caps)
	}
	var list struct{ Tools []map[string]json.RawMessage }
	if err := json.Unmarshal(c.raw(t, "tools/list", map[string]any{}), &list); err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools/list = %+v, %v", list, err)
	}
	if ex := string(list.Tools[0]["execution"]); ex != `{"taskSupport":"required"}` {
		t.Errorf("execution = %s, want taskSupport required", ex)
	}

	task := c.start(t, name, map[string]any{"topic": "tides"})
	if !strings.HasPrefix(task.TaskID, "task-") {
		t.Errorf("task id %q is not one of ours", task.TaskID)
	}
	deadline := time.Now().Add(60 * time.Second)
	for st := task; st.Status != "completed"; st = c.get(t, task.TaskID) {
		if time.Now().After(deadline) || st.Status == "failed" || st.Status == "cancelled" {
			t.Fatalf("task status %q", st.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	raw := c.raw(t, "tasks/result", map[string]any{"taskId": task.TaskID})
	var res rawResult
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || !strings.HasPrefix(res.text(), "# Research Report: tides") {
		t.Errorf("tasks/result = %.300s", raw)
	}
	if want := `"io.modelcontextprotocol/related-task":{"taskId":"` + task.TaskID + `"}`; !strings.Contains(string(res.Meta), want) {
		t.Errorf("tasks/result _meta = %s, want %s", res.Meta, want)
	}
	var tasks struct{ Tasks []taskOf }
	if err := json.Unmarshal(c.raw(t, "tasks/list", map[string]any{}), &tasks); err != nil {
		t.Fatal(err)
	}
	if len(tasks.Tasks) != 1 || tasks.Tasks[0] != (taskOf{TaskID: task.TaskID, Status: "completed"}) {
		t.Errorf("tasks/list = %+v", tasks.Tasks)
	}
}

// rpcError sends a request that must fail and returns its error.
func (c *taskClient) rpcError(t *testing.T, method string, params any) string {
	t.Helper()
	raw, err := c.rawE(method, params)
	if err == nil {
		t.Fatalf("%s %v = %.200s, want an error", method, params, raw)
	}
	return err.Error()
}

// What a client that declares tasks may not do: start a task of a tool
// outside the surface, or ask about a task it did not start (another
// client's, or the upstream's own id of one), whatever it sends as the id.
func TestServer_taskRefusals(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "fake", Tools: []string{"taskecho", "taskwait"}},
	}, withID(testenv.FakeServer(t, testenv.ModeTasks), "fake"))
	s, _ := newServer(t, eng, Options{})
	other, _ := newServer(t, eng, Options{})
	a, b := tasksClient(t, s), tasksClient(t, other)

	raw := a.raw(t, "tools/call", map[string]any{"name": "fake__taskfail", "arguments": map[string]any{}, "task": map[string]any{}})
	var res rawResult
	if err := json.Unmarshal(raw, &res); err != nil || !res.IsError || res.text() != "fake__taskfail is not one of the tools this server lists (did you mean fake__taskwait?)" {
		t.Errorf("a task of an excluded tool = %s", raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := eng.StartTask(ctx, "fake", "taskfail", nil, nil); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("the engine started a task of an excluded tool: %v", err)
	}

	mine := a.start(t, "fake__taskecho", map[string]any{"message": "hi"})
	if msg := b.rpcError(t, "tasks/get", map[string]any{"taskId": mine.TaskID}); !strings.Contains(msg, "-32602") {
		t.Errorf("another client's task: %s, want -32602", msg)
	}
	up, _, err := eng.StartTask(ctx, "fake", "taskecho", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if msg := a.rpcError(t, method, map[string]any{"taskId": up.ID}); !strings.Contains(msg, "-32602") {
			t.Errorf("%s of the upstream's own id: %s, want -32602", method, msg)
		}
	}
	for _, id := range []any{7, nil, map[string]any{}, []any{mine.TaskID}, strings.Repeat("x", 1<<20), "../" + mine.TaskID} {
		msg := a.rpcError(t, "tasks/get", map[string]any{"taskId": id})
		if !strings.Contains(msg, "-32602") || len(msg) > 200 {
			t.Errorf("taskId %.40v: %.300s, want a short -32602", id, msg)
		}
	}
	if msg := a.rpcError(t, "tasks/result", nil); !strings.Contains(msg, "-32602") {
		t.Errorf("no params: %s", msg)
	}
	var list struct{ Tasks []taskOf }
	if err := json.Unmarshal(b.raw(t, "tasks/list", nil), &list); err != nil || len(list.Tasks) != 0 {
		t.Errorf("another client's tasks/list = %+v, %v", list, err)
	}
	a.raw(t, "ping", nil)
}

// A task the client cancels is cancelled upstream, and the upstream's
// status notifications reach the client under its id.
func TestServer_taskCancelled(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "fake", Tools: []string{"taskwait"}},
	}, withID(testenv.FakeServer(t, testenv.ModeTasks), "fake"))
	s, _ := newServer(t, eng, Options{})
	c := tasksClient(t, s)

	task := c.start(t, "fake__taskwait", map[string]any{})
	var got taskOf
	if err := json.Unmarshal(c.raw(t, "tasks/cancel", map[string]any{"taskId": task.TaskID}), &got); err != nil {
		t.Fatal(err)
	}
	if got != (taskOf{TaskID: task.TaskID, Status: "cancelled"}) {
		t.Errorf("tasks/cancel = %+v", got)
	}
	if st := c.get(t, task.TaskID); st.Status != "cancelled" {
		t.Errorf("tasks/get after cancel = %+v", st)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		statuses := append([]json.RawMessage(nil), c.statuses...)
		c.mu.Unlock()
		var last taskOf
		if n := len(statuses); n > 0 {
			_ = json.Unmarshal(statuses[n-1], &last)
		}
		if last == got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status notifications = %s, want one of %+v", statuses, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// panickyEngine's StartTask panics.
type panickyEngine struct{ *mux.Engine }

func (panickyEngine) StartTask(context.Context, string, string, json.RawMessage, json.RawMessage) (*mux.Task, json.RawMessage, error) {
	panic("boom\nsecond line")
}

// A panic while a task request is answered is that request's internal
// error, not the end of the server.
func TestServer_taskPanic(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{
		{ID: "fake", Tools: []string{"taskecho"}},
	}, withID(testenv.FakeServer(t, testenv.ModeTasks), "fake"))
	s, _ := newServer(t, panickyEngine{eng}, Options{})
	c := tasksClient(t, s)
	msg := c.rpcError(t, "tools/call", map[string]any{"name": "fake__taskecho", "arguments": map[string]any{}, "task": map[string]any{}})
	if !strings.Contains(msg, "-32603") || !strings.Contains(msg, "tools/call: internal error: boom second line") {
		t.Errorf("a panicking task request: %s", msg)
	}
	c.raw(t, "ping", nil)
}
