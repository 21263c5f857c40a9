package mux

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A client that speaks tasks itself (tools mode's, when it declares them)
// starts a tool's task through the engine and asks about it later; the
// engine checks the gate each time and sends the requests to the
// connection that started the task, never to another.

// Task is a task started through the engine: the server and tool it
// belongs to, and the server's own id of it.
type Task struct {
	Server, Tool string
	ID           string
	c            *link
}

// TaskGoneError says a task cannot be reached any more: the connection
// that started it ended, and the server that answers now does not know it.
type TaskGoneError struct{ Server string }

func (e *TaskGoneError) ExitCode() int { return exit.Upstream }

func (e *TaskGoneError) Error() string {
	return fmt.Sprintf("the connection to server %s that ran this task has ended, and the task with it", e.Server)
}

// engineTasks are the engine's listeners of task status notifications and
// the connections they were registered with.
type engineTasks struct {
	mu      sync.Mutex
	fs      []func(server, id string, params json.RawMessage)
	watched map[*link]bool
}

// StartTask calls an authorized tool as a task with the caller's task
// parameters (see upstream.TaskConn). It returns the task and the server's
// CreateTaskResult as sent; when the server answered the call plainly, the
// task is nil and raw is the call's result.
func (e *Engine) StartTask(ctx context.Context, server, tool string, args, params json.RawMessage) (_ *Task, raw json.RawMessage, _ error) {
	s := e.Surface()
	if err := s.Check(server, tool); err != nil {
		return nil, nil, err
	}
	srv, _ := s.Server(server)
	c, err := e.connect(ctx, srv)
	if err != nil {
		e.noteFailure(srv.ID, err)
		return nil, nil, err
	}
	tc, ok := c.up.(upstream.TaskConn)
	if !ok {
		return nil, nil, fmt.Errorf("the connection to server %s does not carry tasks", srv.ID)
	}
	e.watchTasks(srv.ID, c, tc)
	c.busy.Add(1)
	raw, id, err := tc.StartTask(ctx, tool, args, params)
	c.busy.Add(-1)
	c.touch()
	if err != nil {
		e.noteFailure(srv.ID, err)
		e.forgetBroken(srv.ID, c, err)
		return nil, nil, err
	}
	if id == "" {
		return nil, raw, nil
	}
	return &Task{Server: srv.ID, Tool: tool, ID: id, c: c}, raw, nil
}

// TaskRequest sends one of upstream.TaskMethods about t to the connection
// that started it, once the gate lets t's tool through, and returns the
// answer as the server sent it.
func (e *Engine) TaskRequest(ctx context.Context, t *Task, method string) (json.RawMessage, error) {
	if !slices.Contains(upstream.TaskMethods, method) {
		return nil, fmt.Errorf("%s is not a request about a task", method)
	}
	if err := e.Surface().Check(t.Server, t.Tool); err != nil {
		return nil, err
	}
	if e.live(t.Server) != t.c {
		return nil, &TaskGoneError{Server: t.Server}
	}
	tc := t.c.up.(upstream.TaskConn) // StartTask made sure
	t.c.busy.Add(1)
	raw, err := tc.TaskRequest(ctx, method, t.ID)
	t.c.busy.Add(-1)
	t.c.touch()
	if err != nil {
		e.forgetBroken(t.Server, t.c, err)
		return nil, err
	}
	return raw, nil
}

// OnTaskStatus registers f to receive every notifications/tasks/status of
// the connections that started a task through StartTask: the server, its
// task id and the notification's params. f must not block.
func (e *Engine) OnTaskStatus(f func(server, id string, params json.RawMessage)) {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	e.tasks.fs = append(e.tasks.fs, f)
}

// watchTasks passes c's task status notifications to the engine's
// listeners, registering once per connection.
func (e *Engine) watchTasks(server string, c *link, tc upstream.TaskConn) {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	if e.tasks.watched[c] {
		return
	}
	if e.tasks.watched == nil {
		e.tasks.watched = map[*link]bool{}
	}
	for l := range e.tasks.watched {
		if l.dead() {
			delete(e.tasks.watched, l) // its connection sends nothing more
		}
	}
	e.tasks.watched[c] = true
	tc.OnTaskStatus(func(id string, params json.RawMessage) {
		e.tasks.mu.Lock()
		fs := slices.Clone(e.tasks.fs)
		e.tasks.mu.Unlock()
		for _, f := range fs {
			f(server, id, params)
		}
	})
}
