package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// TaskConn is what a connection offers a caller that speaks tasks to a
// client of its own (tools mode): the task is the client's, and this
// connection only carries its requests. CallTool, by contrast, follows a
// task to its end itself.
type TaskConn interface {
	// StartTask makes a tools/call of name as a task, with the caller's
	// task parameters (a JSON object such as {"ttl":60000}; nil is {}),
	// and returns the server's answer as it sent it. The call's hooks
	// (HooksOf(ctx)) give its _meta, as for CallTool; their OnProgress
	// receives the task's progress until it ends (a terminal status, or
	// an answer to tasks/result) or the connection closes. id is the server's
	// task id when the answer is a CreateTaskResult; it is "" when the
	// call was answered as a plain call, because the server does not
	// declare task-augmented tools/call or answered the call itself.
	StartTask(ctx context.Context, name string, args, task json.RawMessage) (raw json.RawMessage, id string, err error)
	// TaskRequest sends one of TaskMethods for the server's task id and
	// returns the answer as the server sent it.
	TaskRequest(ctx context.Context, method, id string) (json.RawMessage, error)
	// OnTaskStatus registers f to receive the params of every
	// notifications/tasks/status the server sends, with the task id they
	// name. f runs on the transport's read goroutine and must not block.
	OnTaskStatus(f func(id string, params json.RawMessage))
}

var _ TaskConn = (*conn)(nil)

// TaskMethods are the requests about one task that TaskRequest sends.
var TaskMethods = []string{"tasks/get", "tasks/result", "tasks/cancel"}

// StartTask implements TaskConn.
func (u *conn) StartTask(ctx context.Context, name string, args, params json.RawMessage) (json.RawMessage, string, error) {
	if !u.takesTasks() {
		res, err := u.CallTool(ctx, name, args)
		if err != nil {
			return nil, "", err
		}
		return res.Raw, "", nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(args, &probe); err != nil || probe == nil {
		return nil, "", fmt.Errorf("arguments for %s must be a JSON object", name)
	}
	if err := json.Unmarshal(params, &probe); err != nil || probe == nil {
		return nil, "", fmt.Errorf("the task parameters for %s must be a JSON object", name)
	}
	call := map[string]any{"name": name, "arguments": args, "task": params}
	meta, sink := u.callMeta(HooksOf(ctx))
	if meta != nil {
		call["_meta"] = meta
	}
	// The task counts as a call in flight until it ends, for the requests
	// for input it makes.
	end := u.calls.begin()
	raw, err := u.createTask(ctx, call)
	if err != nil {
		end()
		sink.stop()
		return nil, "", err
	}
	var created struct {
		Task *task `json:"task"`
	}
	if json.Unmarshal(raw, &created) == nil && created.Task != nil && created.Task.TaskID != "" {
		// The token stays the task's until it ends (2025-11-25).
		u.tasks.keep(created.Task.TaskID, sink, end)
		return raw, created.Task.TaskID, nil
	}
	end()
	sink.stop()
	// The server answered the call itself; it must still be a result.
	if _, err := u.callResult(name, raw); err != nil {
		return nil, "", err
	}
	return raw, "", nil
}

// takesTasks says whether the server declares task-augmented tools/call.
func (u *conn) takesTasks() bool {
	t := u.serverCaps.Tasks
	return t != nil && t.Requests != nil && t.Requests.Tools != nil && t.Requests.Tools.Call != nil
}

// TaskRequest implements TaskConn.
func (u *conn) TaskRequest(ctx context.Context, method, id string) (json.RawMessage, error) {
	if !slices.Contains(TaskMethods, method) {
		return nil, fmt.Errorf("%s is not a request about a task", method)
	}
	raw, err := u.request(ctx, method, map[string]any{"taskId": id})
	var rpc *RPCError
	if errors.As(err, &rpc) || err == nil && (method == "tasks/result" || endedIn(raw)) {
		u.tasks.ended(id) // the task's progress is over
	}
	return raw, err
}

// endedIn says whether a task, as tasks/get or tasks/cancel answer, has
// ended.
func endedIn(raw json.RawMessage) bool {
	var t task
	return json.Unmarshal(raw, &t) == nil && t.terminal()
}

// OnTaskStatus implements TaskConn.
func (u *conn) OnTaskStatus(f func(id string, params json.RawMessage)) {
	u.tasks.mu.Lock()
	defer u.tasks.mu.Unlock()
	u.tasks.relays = append(u.tasks.relays, f)
}
