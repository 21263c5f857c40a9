package toolsmode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// takeCall takes a tools/call that asks for a task, of a tool that may run
// as one, and is let through the gate; every other call is the SDK's,
// answered plainly as to a client without tasks.
func (c *taskConn) takeCall(req *jsonrpc.Request) bool {
	var p struct {
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
		Task      json.RawMessage            `json:"task"`
		Meta      map[string]json.RawMessage `json:"_meta"`
	}
	if !req.ID.IsValid() || json.Unmarshal(req.Params, &p) != nil || !isObject(p.Task) {
		return false
	}
	e, ok := c.s.exposedEntry(p.Name)
	if !ok || !c.s.isActive(p.Name) || e.tool.TaskSupport == catalog.TaskForbidden {
		return false // the gate answers a name outside the active set
	}
	c.answer(req, func(ctx context.Context, _ *jsonrpc.Request) (json.RawMessage, error) {
		return c.startTask(c.taskHooks(ctx, p.Meta), e, p.Arguments, p.Task)
	})
	return true
}

// taskHooks is ctx for starting a task for the client, as withCallHooks
// is for a plain call: the client's _meta goes upstream, key by key, and
// when it carries a progressToken the task's progress comes back to the
// client under that token until the task ends.
func (c *taskConn) taskHooks(ctx context.Context, meta map[string]json.RawMessage) context.Context {
	if len(meta) == 0 {
		return ctx
	}
	h := *upstream.HooksOf(ctx)
	h.Meta = meta
	if token, ok := meta["progressToken"]; ok {
		h.OnProgress = func(p upstream.Progress) {
			params, err := json.Marshal(&mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message})
			if err != nil {
				return
			}
			// A client that is gone misses a report.
			_ = c.send(c.life, &jsonrpc.Request{Method: "notifications/progress", Params: params})
		}
	}
	return upstream.WithCallHooks(ctx, &h)
}

// startTask starts e's task upstream and answers with its CreateTaskResult
// under an id of this client's. What fails is a tool error, as for a
// plain call; a server that answered plainly is answered with its result.
func (c *taskConn) startTask(ctx context.Context, e *entry, args, params json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if c.table.full() {
		return json.Marshal(toolError(fmt.Sprintf("%s: this client has %d tasks that have not ended; no more can be started", e.name, maxTasks)))
	}
	if t := c.s.opts.CallTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	t, raw, err := c.eng.StartTask(ctx, e.tool.Server, e.tool.Name, args, params)
	if err != nil {
		return json.Marshal(c.s.callError(e, err))
	}
	if t == nil {
		return raw, nil
	}
	id, err := c.table.add(t)
	if err != nil {
		return nil, err
	}
	return withTaskID(raw, id, false)
}

// taskRequest answers tasks/get, tasks/result, tasks/cancel and tasks/list
// for this client's tasks.
func (c *taskConn) taskRequest(ctx context.Context, req *jsonrpc.Request) (json.RawMessage, error) {
	if req.Method == "tasks/list" {
		return c.listTasks(ctx)
	}
	id, t, err := c.lookup(req)
	if err != nil {
		return nil, err
	}
	if lim := c.s.opts.CallTimeout; lim > 0 && req.Method != "tasks/result" {
		// tasks/result waits for the task's end, which its ttl bounds.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim)
		defer cancel()
	}
	raw, err := c.eng.TaskRequest(ctx, t, req.Method)
	if err != nil {
		return nil, taskError(req.Method, err)
	}
	if req.Method != "tasks/result" {
		c.table.note(id, raw)
	}
	return withTaskID(raw, id, req.Method == "tasks/result")
}

// lookup is the task a request names, when it is this client's.
func (c *taskConn) lookup(req *jsonrpc.Request) (string, *mux.Task, error) {
	var p struct {
		TaskID json.RawMessage `json:"taskId"`
	}
	var id string
	if json.Unmarshal(req.Params, &p) != nil || json.Unmarshal(p.TaskID, &id) != nil {
		return "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: req.Method + ": taskId must be a string"}
	}
	t, ok := c.table.get(id)
	if !ok {
		return "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("%s: no task %s of this client", req.Method, strconv.Quote(clip.Runes(id, 64)))}
	}
	return id, t, nil
}

// taskError is a failed request about a task as its JSON-RPC error: the
// server's own error as it said it, a task that cannot be reached as an
// invalid task id, anything else on one line.
func taskError(method string, err error) error {
	var rpc *upstream.RPCError
	var gone *mux.TaskGoneError
	var na *catalog.NotAvailableError
	switch {
	case errors.As(err, &rpc):
		return &jsonrpc.Error{Code: int64(rpc.Code), Message: clip.Line(rpc.Message), Data: rpc.Data}
	case errors.As(err, &gone), errors.As(err, &na):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": " + clip.Line(err.Error())}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: method + ": " + clip.Line(err.Error())}
}

// listTasks answers tasks/list with this client's tasks, each as its
// server reports it now, in the order they were started; one page. A
// task its server no longer knows leaves the list.
func (c *taskConn) listTasks(ctx context.Context) (json.RawMessage, error) {
	ids, tasks := c.table.all()
	out := make([]json.RawMessage, len(ids))
	var g errgroup.Group
	g.SetLimit(4)
	for i, id := range ids {
		g.Go(func() error {
			raw, err := c.eng.TaskRequest(ctx, tasks[i], "tasks/get")
			var rpc *upstream.RPCError
			var gone *mux.TaskGoneError
			switch {
			case errors.As(err, &rpc), errors.As(err, &gone):
				c.table.remove(id)
				return nil
			case err != nil:
				return nil // not known now; listed again next time
			}
			c.table.note(id, raw)
			out[i], _ = withTaskID(raw, id, false)
			return nil
		})
	}
	_ = g.Wait()
	list := make([]json.RawMessage, 0, len(out))
	for _, raw := range out {
		if raw != nil {
			list = append(list, raw)
		}
	}
	return json.Marshal(map[string]any{"tasks": list})
}

// clientTask is the client's id of a server's task, when the client
// served now started it through the task relay.
func (s *Server) clientTask(server, upstreamID string) (string, bool) {
	c := s.tasks.conn.Load()
	if c == nil {
		return "", false
	}
	return c.table.ours(server, upstreamID)
}

// taskStatus passes an upstream's notifications/tasks/status on to the
// client served now, under its id, when the task is its. It runs on the
// upstream's read goroutine, so it never waits.
func (s *Server) taskStatus(server, upstreamID string, params json.RawMessage) {
	c := s.tasks.conn.Load()
	if c == nil {
		return
	}
	id, ok := c.table.ours(server, upstreamID)
	if !ok {
		return
	}
	c.table.note(id, params)
	p, err := withTaskID(params, id, false)
	if err != nil {
		return
	}
	select {
	case c.status <- &jsonrpc.Request{Method: "notifications/tasks/status", Params: p}:
	default:
	}
}

// sendStatus sends the queued status notifications until the connection
// closes.
func (c *taskConn) sendStatus() {
	for {
		select {
		case <-c.life.Done():
			return
		case n := <-c.status:
			_ = c.send(c.life, n)
		}
	}
}

// withTaskID is a task, a CreateTaskResult, a tasks/result or a status
// notification's params with the upstream's task id replaced by ours:
// taskId, task.taskId and the related-task _meta, which related adds
// when it is missing (a tasks/result must carry it).
func withTaskID(raw json.RawMessage, id string, related bool) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server sent an invalid task"}
	}
	idJSON, _ := json.Marshal(id)
	if _, ok := obj["taskId"]; ok {
		obj["taskId"] = idJSON
	}
	var task map[string]json.RawMessage
	if json.Unmarshal(obj["task"], &task) == nil && task != nil {
		task["taskId"] = idJSON
		obj["task"], _ = json.Marshal(task)
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(obj["_meta"], &meta)
	if _, ok := meta[relatedTaskKey]; ok || related {
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[relatedTaskKey], _ = json.Marshal(map[string]string{"taskId": id})
		obj["_meta"], _ = json.Marshal(meta)
	}
	return json.Marshal(obj)
}

// maxTasks bounds the tasks one client keeps that have not ended; ended
// ones make room for new ones.
const maxTasks = 1000

// taskTable is a client's tasks, by an id of ours that names one server's
// task: ids of different servers never collide, and an id is worth
// nothing to another client.
type taskTable struct {
	mu    sync.Mutex
	order []string
	by    map[string]*tableEntry
	byUp  map[[2]string]string // (server, its task id) -> ours
}

type tableEntry struct {
	t      *mux.Task
	status string // as last seen
}

func (tt *taskTable) full() bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.order) < maxTasks {
		return false
	}
	for _, id := range tt.order {
		if ended(tt.by[id].status) {
			return false
		}
	}
	return true
}

// add records t under a new id of ours, making room by forgetting the
// oldest task that ended.
func (tt *taskTable) add(t *mux.Task) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := "task-" + hex.EncodeToString(b[:])
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.by == nil {
		tt.by, tt.byUp = map[string]*tableEntry{}, map[[2]string]string{}
	}
	if len(tt.order) >= maxTasks {
		for _, old := range tt.order {
			if ended(tt.by[old].status) {
				tt.removeLocked(old)
				break
			}
		}
	}
	tt.order = append(tt.order, id)
	tt.by[id] = &tableEntry{t: t, status: "working"}
	tt.byUp[[2]string{t.Server, t.ID}] = id
	return id, nil
}

func (tt *taskTable) get(id string) (*mux.Task, bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	e, ok := tt.by[id]
	if !ok {
		return nil, false
	}
	return e.t, true
}

func (tt *taskTable) ours(server, upstreamID string) (string, bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	id, ok := tt.byUp[[2]string{server, upstreamID}]
	return id, ok
}

// note records the status a task or a status notification says.
func (tt *taskTable) note(id string, raw json.RawMessage) {
	var t struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(raw, &t) != nil || t.Status == "" {
		return
	}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if e, ok := tt.by[id]; ok {
		e.status = t.Status
	}
}

// all is the tasks in the order they were started.
func (tt *taskTable) all() ([]string, []*mux.Task) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	ids := append([]string(nil), tt.order...)
	tasks := make([]*mux.Task, len(ids))
	for i, id := range ids {
		tasks[i] = tt.by[id].t
	}
	return ids, tasks
}

func (tt *taskTable) remove(id string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.removeLocked(id)
}

func (tt *taskTable) removeLocked(id string) {
	e, ok := tt.by[id]
	if !ok {
		return
	}
	delete(tt.by, id)
	delete(tt.byUp, [2]string{e.t.Server, e.t.ID})
	for i, o := range tt.order {
		if o == id {
			tt.order = append(tt.order[:i], tt.order[i+1:]...)
			break
		}
	}
}

// ended says whether a status is one a task does not leave.
func ended(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}
