package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
)

// A tool whose execution.taskSupport is "required" answers only a
// tools/call made as a task (MCP 2025-11-25): the call returns a task at
// once, and the result comes later. CallTool hides that: it creates the
// task, follows it to its end, and returns its result as the call's.

type taskSupportKey struct{}

// WithTaskSupport returns a context whose tools/call requests are for a
// tool of that taskSupport. The caller knows the tool (a connection made
// for one call has not listed it); a context without it is a plain call.
func WithTaskSupport(ctx context.Context, ts catalog.TaskSupport) context.Context {
	return context.WithValue(ctx, taskSupportKey{}, ts)
}

// asTask says whether a call under ctx is made as a task: the tool
// requires it and the server declares task-augmented tools/call. A tool
// that only allows it is called plainly, which answers in one round trip
// instead of a poll.
func (u *conn) asTask(ctx context.Context) bool {
	ts, _ := ctx.Value(taskSupportKey{}).(catalog.TaskSupport)
	return ts == catalog.TaskRequired && u.takesTasks()
}

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// Bounds on the poll interval a server asks for.
const (
	defaultPollInterval = time.Second
	minPollInterval     = 100 * time.Millisecond
	maxPollInterval     = time.Minute
)

// task is the state of a task as the server reports it.
type task struct {
	TaskID        string   `json:"taskId"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage,omitempty"`
	PollInterval  *float64 `json:"pollInterval,omitempty"` // milliseconds
}

func (t *task) terminal() bool {
	return t.Status == taskCompleted || t.Status == taskFailed || t.Status == taskCancelled
}

// interval is how long to wait before the next tasks/get.
func (t *task) interval() time.Duration {
	switch ms := t.PollInterval; {
	case ms == nil:
		return defaultPollInterval
	case *ms >= float64(maxPollInterval/time.Millisecond):
		return maxPollInterval
	case *ms <= float64(minPollInterval/time.Millisecond):
		return minPollInterval
	default:
		return time.Duration(*ms * float64(time.Millisecond))
	}
}

// TaskError says the task a call became ended without a result: the server
// cancelled it, or it failed without saying more.
type TaskError struct {
	Server, Tool string
	TaskID       string
	Status       string // "failed" or "cancelled"
	Message      string // the server's statusMessage, on one line
}

func (e *TaskError) ExitCode() int { return exit.ToolError }

func (e *TaskError) Error() string {
	msg := fmt.Sprintf("%s.%s: the server cancelled its task", e.Server, e.Tool)
	if e.Status == taskFailed {
		msg = fmt.Sprintf("%s.%s: its task failed", e.Server, e.Tool)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// callTask makes a tools/call as a task and follows the task to its end.
// Its statuses are reported through sink, the call's progress.
func (u *conn) callTask(ctx context.Context, name string, params map[string]any, sink *progressSink) (*catalog.Result, error) {
	params["task"] = map[string]any{}
	raw, err := u.createTask(ctx, params)
	if err != nil {
		return nil, err
	}
	var created struct {
		Task json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || len(created.Task) == 0 || string(created.Task) == "null" {
		// The server answered the call itself.
		return u.callResult(name, raw)
	}
	t := &task{}
	if err := json.Unmarshal(created.Task, t); err != nil || t.TaskID == "" {
		return nil, fmt.Errorf("tools/call %s: server %s sent an invalid task", name, u.server)
	}
	w := u.tasks.watch(t.TaskID)
	defer u.tasks.unwatch(t.TaskID)
	res, err := u.follow(ctx, name, t, w, sink)
	if err != nil && ctx.Err() != nil {
		u.cancelTask(t.TaskID)
	}
	return res, err
}

// createTask sends a task-augmented tools/call. A caller that gives up
// while the server is creating the task still waits for it, up to
// cancelTimeout, and cancels it with tasks/cancel: a server that has made
// the task does not stop it for a notifications/cancelled of the call.
func (u *conn) createTask(ctx context.Context, params map[string]any) (json.RawMessage, error) {
	if ctx.Err() != nil {
		return nil, u.contextError(ctx, "tools/call")
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	unhook := context.AfterFunc(ctx, func() { time.AfterFunc(cancelTimeout, stop) })
	defer unhook()
	raw, err := u.request(rctx, "tools/call", params)
	if ctx.Err() == nil {
		return raw, err
	}
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if err == nil && json.Unmarshal(raw, &created) == nil && created.Task.TaskID != "" {
		u.cancelTask(created.Task.TaskID)
	}
	return nil, u.contextError(ctx, "tools/call")
}

// follow polls a task with tasks/get, or takes what notifications/tasks/status
// says of it, until it ends or needs input, reporting each change through
// sink; then it fetches the outcome with tasks/result,
// which waits for the end (and carries the server's requests for input).
func (u *conn) follow(ctx context.Context, name string, t *task, w <-chan task, sink *progressSink) (*catalog.Result, error) {
	rep := taskReporter{ctx: ctx, sink: sink, text: u.secret.Text}
	rep.report(t)
	for !t.terminal() && t.Status != taskInputRequired {
		timer := time.NewTimer(t.interval())
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, u.contextError(ctx, "tasks/get")
		case n := <-w:
			timer.Stop()
			if n.PollInterval == nil {
				n.PollInterval = t.PollInterval
			}
			*t = n
			rep.report(t)
			continue
		case <-timer.C:
		}
		next, err := u.getTask(ctx, name, t.TaskID)
		if err != nil {
			return nil, err
		}
		*t = *next
		rep.report(t)
	}
	raw, err := u.request(ctx, "tasks/result", map[string]any{"taskId": t.TaskID})
	if err != nil {
		return nil, err
	}
	res, err := u.callResult(name, withoutRelatedTask(raw))
	if err != nil {
		return nil, err
	}
	// A failed tool call's result has isError; a task that ended otherwise
	// has no result to give.
	if t.Status == taskCancelled || t.Status == taskFailed && !res.IsError {
		return nil, &TaskError{Server: u.server, Tool: name, TaskID: t.TaskID, Status: t.Status,
			Message: clip.Line(u.secret.Text(t.StatusMessage))}
	}
	return res, nil
}

// getTask is one tasks/get.
func (u *conn) getTask(ctx context.Context, name, id string) (*task, error) {
	raw, err := u.request(ctx, "tasks/get", map[string]any{"taskId": id})
	if err != nil {
		return nil, err
	}
	var t task
	if err := json.Unmarshal(raw, &t); err != nil || t.Status == "" {
		// The id is the server's text: its secrets go before it is cut,
		// which could leave part of one.
		return nil, fmt.Errorf("tasks/get %s: server %s sent an invalid task for %s", clip.Runes(u.secret.Text(id), 64), u.server, name)
	}
	t.TaskID = id
	return &t, nil
}

// callResult parses a tools/call result.
func (u *conn) callResult(name string, raw json.RawMessage) (*catalog.Result, error) {
	if err := nullResult(u.server, "tools/call", raw); err != nil {
		return nil, err
	}
	res, err := catalog.ParseResult(raw)
	if err != nil {
		return nil, invalidResult(u.server, "tools/call", err)
	}
	return res, nil
}

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// withoutRelatedTask takes the task's key out of a result's _meta: the
// result stands for a plain call, and the task is this connection's own.
func withoutRelatedTask(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(obj["_meta"], &meta) != nil {
		return raw
	}
	if _, ok := meta[relatedTaskKey]; !ok {
		return raw
	}
	delete(meta, relatedTaskKey)
	if len(meta) == 0 {
		delete(obj, "_meta")
	} else {
		obj["_meta"], _ = json.Marshal(meta)
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// cancelTask asks the server to stop a task whose caller gave up. It
// waits for the answer, a little: a caller that gave up may be about to
// close the connection, which would lose a request still on its way.
func (u *conn) cancelTask(id string) {
	ctx, cancel := context.WithTimeout(u.life, cancelTimeout)
	defer cancel()
	if _, err := u.request(ctx, "tasks/cancel", map[string]any{"taskId": id}); err != nil {
		u.log.Debug("tasks/cancel failed", "task", id, "err", err)
	}
}

// taskReporter reports a task's status changes as progress: "working:
// Gathering sources...", through the call's sink, which numbers them
// among the server's own reports.
type taskReporter struct {
	ctx  context.Context
	sink *progressSink       // nil when the caller does not ask for progress
	text func(string) string // takes the connection's secrets out
	last string
}

// maxStatusText bounds a status as progress, in runes. A status message
// says what a task is doing in a line or two; 500 runes is several lines
// of a terminal, and keeps a server from making every report that an
// mcp serve client receives carry a page (the terminal line is clipped
// to its width again).
const maxStatusText = 500

func (r *taskReporter) report(t *task) {
	msg := r.text(t.Status)
	if t.StatusMessage != "" {
		msg += ": " + r.text(t.StatusMessage)
	}
	msg = clip.Runes(msg, maxStatusText) // after the secrets: a cut could leave part of one
	if r.sink == nil || msg == r.last {
		return
	}
	r.last = msg
	r.sink.status(r.ctx, Progress{Message: msg})
}

// taskWatch hands notifications/tasks/status to the call following that
// task, and to the relays that carry them to a client (OnTaskStatus).
type taskWatch struct {
	mu     sync.Mutex
	by     map[string]chan task
	relays []func(id string, params json.RawMessage)
	// sinks are the progress of the tasks started for a caller of their
	// own (StartTask), and ends end their count among the calls in
	// flight, until they end.
	sinks map[string]*progressSink
	ends  map[string]func()
	// early are the ids of tasks that ended before keep was called for
	// them (a status can come before the answer that creates the task),
	// oldest first, at most maxEarly.
	early  []string
	closed bool
}

const maxEarly = 256

// maxTaskSinks bounds the tasks started for a caller (StartTask) that one
// connection holds progress and a count in flight for; a task started
// past it has neither.
const maxTaskSinks = 1000

// keep holds s, the progress of task id (nil when none is asked for),
// and end, which ends its count among the calls in flight, until the task
// ends.
func (w *taskWatch) keep(id string, s *progressSink, end func()) {
	w.mu.Lock()
	if w.sinks == nil {
		w.sinks, w.ends = map[string]*progressSink{}, map[string]func(){}
	}
	if w.closed || len(w.ends) >= maxTaskSinks || w.endedEarly(id) {
		w.mu.Unlock()
		if s != nil {
			s.release()
		}
		end()
		return
	}
	oldSink, oldEnd := w.sinks[id], w.ends[id]
	if s != nil {
		w.sinks[id] = s
	}
	w.ends[id] = end
	w.mu.Unlock()
	if oldSink != nil && oldSink != s {
		oldSink.release()
	}
	if oldEnd != nil {
		oldEnd()
	}
}

// endedEarly says whether task id ended before keep, and forgets it.
func (w *taskWatch) endedEarly(id string) bool {
	for i, e := range w.early {
		if e == id {
			w.early = append(w.early[:i], w.early[i+1:]...)
			return true
		}
	}
	return false
}

// ended releases what is held for task id, which has ended.
func (w *taskWatch) ended(id string) {
	w.mu.Lock()
	s, end := w.sinks[id], w.ends[id]
	delete(w.sinks, id)
	delete(w.ends, id)
	if end == nil {
		if len(w.early) >= maxEarly {
			w.early = w.early[1:]
		}
		w.early = append(w.early, id)
	}
	w.mu.Unlock()
	if s != nil {
		s.release()
	}
	if end != nil {
		end()
	}
}

// close releases what is held for every task: the connection ends.
func (w *taskWatch) close() {
	w.mu.Lock()
	sinks, ends := w.sinks, w.ends
	w.sinks, w.ends, w.closed = nil, nil, true
	w.mu.Unlock()
	for _, s := range sinks {
		s.release()
	}
	for _, end := range ends {
		end()
	}
}

func (w *taskWatch) watch(id string) <-chan task {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[string]chan task{}
	}
	ch := make(chan task, 1)
	w.by[id] = ch
	return ch
}

func (w *taskWatch) unwatch(id string) {
	w.mu.Lock()
	delete(w.by, id)
	w.mu.Unlock()
}

// deliver passes on a status notification without blocking: the reader
// needs only the latest, so an older one not yet read is replaced.
func (w *taskWatch) deliver(n mcp.JSONRPCNotification) {
	b, err := json.Marshal(n.Params.AdditionalFields)
	var t task
	if err != nil || json.Unmarshal(b, &t) != nil || t.TaskID == "" || t.Status == "" {
		return
	}
	if t.terminal() {
		defer w.ended(t.TaskID) // after the unlock below
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.relays {
		f(t.TaskID, b)
	}
	ch, ok := w.by[t.TaskID]
	if !ok {
		return
	}
	select {
	case <-ch:
	default:
	}
	ch <- t
}
