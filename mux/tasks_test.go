package mux

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A task started through the engine passes the gate, is asked about on
// the connection that started it, and its status notifications reach the
// engine's listeners; a tool outside the surface cannot be started as a
// task, and a task whose tool left the surface cannot be asked about.
func TestEngine_StartTask(t *testing.T) {
	t.Parallel()
	surface := func(tools ...string) *catalog.Surface {
		return &catalog.Surface{Mode: catalog.ModeTools, Servers: []*catalog.ServerSurface{{ID: "fake", Tools: tools}}}
	}
	eps := map[string]manifests.Endpoint{"fake": testenv.FakeServer(t, testenv.ModeTasks)}
	e := NewEngine(surface("taskecho"), eps, os.LookupEnv, upstream.Options{})
	t.Cleanup(func() { _ = e.Close() })
	statuses := make(chan string, 16)
	e.OnTaskStatus(func(server, id string, params json.RawMessage) {
		select {
		case statuses <- server + " " + id:
		default:
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, _, err := e.StartTask(ctx, "fake", "taskwait", nil, nil); !isNotAvailable(err) {
		t.Errorf("StartTask of an excluded tool: %v, want NotAvailableError", err)
	}
	task, raw, err := e.StartTask(ctx, "fake", "taskecho", json.RawMessage(`{"message":"hi"}`), json.RawMessage(`{"ttl":60000}`))
	if err != nil || task == nil || task.ID == "" {
		t.Fatalf("StartTask = %v, %s, %v", task, raw, err)
	}
	if !strings.Contains(string(raw), task.ID) {
		t.Errorf("CreateTaskResult %s does not name task %s", raw, task.ID)
	}
	res, err := e.TaskRequest(ctx, task, "tasks/result")
	if err != nil || !strings.Contains(string(res), "Echo: hi") {
		t.Fatalf("tasks/result = %s, %v", res, err)
	}
	select {
	case got := <-statuses:
		if got != "fake "+task.ID {
			t.Errorf("status of %q, want fake %s", got, task.ID)
		}
	case <-time.After(10 * time.Second):
		t.Error("no task status notification reached the listener")
	}
	if _, err := e.TaskRequest(ctx, task, "tools/call"); err == nil {
		t.Error("TaskRequest sent a request that is not about a task")
	}

	// A task is asked about on its own connection only: once that ends,
	// the server that would answer now does not know it.
	if n := e.CloseIdle(0); n != 1 {
		t.Fatalf("CloseIdle closed %d connections, want 1", n)
	}
	var gone *TaskGoneError
	if _, err := e.TaskRequest(ctx, task, "tasks/get"); !errors.As(err, &gone) {
		t.Errorf("tasks/get after its connection closed: %v, want TaskGoneError", err)
	}
	if _, _, err := e.StartTask(ctx, "fake", "taskecho", nil, nil); err != nil {
		t.Fatal(err)
	}

	e.Reconfigure(surface("taskwait"), eps)
	if _, err := e.TaskRequest(ctx, task, "tasks/get"); !isNotAvailable(err) {
		t.Errorf("tasks/get after the tool left the surface: %v, want NotAvailableError", err)
	}
}

func isNotAvailable(err error) bool {
	var na *catalog.NotAvailableError
	return errors.As(err, &na)
}
