package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTSClient_TaskRelayed: a TypeScript SDK client that declares tasks
// runs a tool that requires one through the SDK's task API, as a task of
// mcp serve's that is the upstream's underneath: created, polled, its
// result fetched, listed; a second client cancels a task of its own and
// cannot ask about the first one's.
func TestTSClient_TaskRelayed(t *testing.T) {
	t.Parallel()
	f := runTSClient(t, serveEnv(t), "taskrelay", "--recipe", serveRecipe(t), "serve", "--agent", "researcher")
	var tasksCap, execution json.RawMessage
	var taskID, relatedTask, created, cancelled, after string
	var stream, listed, secondListed []string
	var result tsCall
	var othersTask int
	f.get(t, "tasksCapability", &tasksCap)
	f.get(t, "execution", &execution)
	f.get(t, "taskId", &taskID)
	f.get(t, "stream", &stream)
	f.get(t, "result", &result)
	f.get(t, "relatedTask", &relatedTask)
	f.get(t, "listed", &listed)
	f.get(t, "created", &created)
	f.get(t, "cancelled", &cancelled)
	f.get(t, "after", &after)
	f.get(t, "othersTask", &othersTask)
	f.get(t, "secondListed", &secondListed)

	if !strings.Contains(string(tasksCap), `"requests":{"tools":{"call":{}}}`) {
		t.Errorf("tasks capability = %s", tasksCap)
	}
	if string(execution) != `{"taskSupport":"required"}` {
		t.Errorf("execution = %s", execution)
	}
	if !strings.HasPrefix(taskID, "task-") || relatedTask != taskID {
		t.Errorf("task %q, its result's related task %q", taskID, relatedTask)
	}
	if stream[0] != "taskCreated" || !slices.Contains(stream, "taskStatus:completed") || stream[len(stream)-1] != "result" {
		t.Errorf("stream = %q", stream)
	}
	if result != (tsCall{Text: "# Research Report: tides"}) {
		t.Errorf("result = %+v", result)
	}
	if !slices.Equal(listed, []string{taskID}) {
		t.Errorf("tasks/list = %q, want [%s]", listed, taskID)
	}
	if cancelled != "cancelled" || after != "cancelled" {
		t.Errorf("cancelled task: %q, then %q", cancelled, after)
	}
	if othersTask != -32602 {
		t.Errorf("another client's task: code %d, want -32602", othersTask)
	}
	if !slices.Equal(secondListed, []string{created}) {
		t.Errorf("second client's tasks/list = %q, want [%s]", secondListed, created)
	}
}
