package toolsmode

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/mux"
)

// Tasks (MCP 2025-11-25) are relayed to a client that declares them in
// its initialize: the tools it sees keep their execution.taskSupport, a
// tools/call with params.task starts the task upstream, and tasks/get,
// tasks/result, tasks/cancel and tasks/list of its tasks are answered by
// the upstream that owns them. A client that does not declare tasks sees
// none of it, and its calls are run to their end.
//
// The SDK cannot carry this (no tasks capability, unknown methods refused
// before any middleware, sealed results), so it is done beneath it: a
// Connection that takes these messages out of what the SDK reads and
// amends what it writes.

// TaskEngine is what a Server needs of the engine to relay tasks;
// *mux.Engine has it. StartTask and TaskRequest put every request
// through the surface's gate.
type TaskEngine interface {
	StartTask(ctx context.Context, server, tool string, args, params json.RawMessage) (*mux.Task, json.RawMessage, error)
	TaskRequest(ctx context.Context, t *mux.Task, method string) (json.RawMessage, error)
	OnTaskStatus(f func(server, id string, params json.RawMessage))
}

var _ TaskEngine = (*mux.Engine)(nil)

// serverTasks is a Server's side of the relay.
type serverTasks struct {
	once sync.Once
	// exposed is byName as last built, for the connection, which must not
	// wait for the activating lock: the SDK may hold its write while a
	// holder of that lock sends a notification.
	exposed atomic.Pointer[map[string]*entry]
	conn    atomic.Pointer[taskConn] // the client served now, if any
}

// expose records byName for the relay; the caller holds activating.
func (s *Server) expose() {
	m := make(map[string]*entry, len(s.byName))
	for k, v := range s.byName {
		m[k] = v
	}
	s.tasks.exposed.Store(&m)
}

// exposedEntry is the tool served under name, if any.
func (s *Server) exposedEntry(name string) (*entry, bool) {
	m := s.tasks.exposed.Load()
	if m == nil {
		return nil, false
	}
	e, ok := (*m)[name]
	return e, ok
}

// taskTransport is t with the task relay beneath the SDK, when the
// engine can relay tasks; g, the guard of t's input, learns the revision
// the connection negotiates.
func (s *Server) taskTransport(t mcp.Transport, g *batchGuard) mcp.Transport {
	eng, ok := s.eng.(TaskEngine)
	if !ok {
		return t
	}
	s.tasks.once.Do(func() { eng.OnTaskStatus(s.taskStatus) })
	return &taskTransport{Transport: t, s: s, eng: eng, guard: g}
}

type taskTransport struct {
	mcp.Transport
	s     *Server
	eng   TaskEngine
	guard *batchGuard
}

func (t *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := newTaskConn(inner, t.s, t.eng)
	c.guard = t.guard
	t.s.tasks.conn.Store(c)
	return c, nil
}

// taskConn is the client's connection as the SDK sees it, less the
// messages of the task relay.
type taskConn struct {
	mcp.Connection
	s       *Server
	eng     TaskEngine
	guard   *batchGuard
	writeMu sync.Mutex // one message at a time, the SDK's or the relay's

	mu       sync.Mutex
	uses     bool                              // the client declared tasks
	initID   jsonrpc.ID                        // its initialize, until answered
	lists    map[jsonrpc.ID]bool               // its tools/list requests in flight
	inflight map[jsonrpc.ID]context.CancelFunc // its requests answered here
	closed   bool
	table    taskTable

	status chan *jsonrpc.Request // notifications/tasks/status to send
	life   context.Context
	end    context.CancelFunc
	wg     sync.WaitGroup
}

// statusQueue is how many status notifications wait for a slow client
// before more are dropped: a client that misses one still polls.
const statusQueue = 64

func newTaskConn(inner mcp.Connection, s *Server, eng TaskEngine) *taskConn {
	c := &taskConn{Connection: inner, s: s, eng: eng,
		lists: map[jsonrpc.ID]bool{}, inflight: map[jsonrpc.ID]context.CancelFunc{},
		status: make(chan *jsonrpc.Request, statusQueue)}
	c.life, c.end = context.WithCancel(s.life)
	c.goOwned(c.sendStatus)
	return c
}

// goOwned runs f on a goroutine that Close waits for; after Close it does
// nothing.
func (c *taskConn) goOwned(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
}

// Read returns the next message that is the SDK's to answer; the relay's
// are answered on goroutines of their own.
func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !c.take(req) {
			return msg, nil
		}
	}
}

// take notes what the relay must know of a request on its way to the SDK,
// and answers it instead when it is the relay's: it says which.
func (c *taskConn) take(req *jsonrpc.Request) bool {
	if req.Method == "initialize" && req.ID.IsValid() {
		var p struct {
			Capabilities struct {
				Tasks json.RawMessage `json:"tasks"`
			} `json:"capabilities"`
		}
		declared := json.Unmarshal(req.Params, &p) == nil && isObject(p.Capabilities.Tasks)
		c.mu.Lock()
		c.uses, c.initID = declared, req.ID
		c.mu.Unlock()
		return false
	}
	c.mu.Lock()
	uses := c.uses
	c.mu.Unlock()
	if !uses {
		return false
	}
	switch req.Method {
	case "notifications/cancelled":
		return c.cancelled(req)
	case "tools/list":
		if req.ID.IsValid() {
			c.mu.Lock()
			c.lists[req.ID] = true
			c.mu.Unlock()
		}
		return false
	case methodCallTool:
		return c.takeCall(req)
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		if !req.ID.IsValid() {
			return false
		}
		c.answer(req, c.taskRequest)
		return true
	}
	return false
}

// cancelled ends a request the relay is answering, when the client
// cancels it; the SDK's own requests are the SDK's to cancel.
func (c *taskConn) cancelled(req *jsonrpc.Request) bool {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return false
	}
	c.mu.Lock()
	cancel, ok := c.inflight[id]
	c.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// answer runs h for req on a goroutine of its own and sends its answer;
// the client's notifications/cancelled for req cancels its context.
func (c *taskConn) answer(req *jsonrpc.Request, h func(ctx context.Context, req *jsonrpc.Request) (json.RawMessage, error)) {
	ctx, cancel := context.WithCancel(c.life)
	c.mu.Lock()
	c.inflight[req.ID] = cancel
	c.mu.Unlock()
	c.goOwned(func() {
		defer func() {
			c.mu.Lock()
			delete(c.inflight, req.ID)
			c.mu.Unlock()
			cancel()
		}()
		res, err := c.recovered(ctx, req, h)
		if ctx.Err() != nil && c.life.Err() == nil {
			return // cancelled by the client, which expects no answer
		}
		resp := &jsonrpc.Response{ID: req.ID, Result: res}
		if err != nil {
			resp = &jsonrpc.Response{ID: req.ID, Error: err}
		}
		_ = c.send(c.life, resp)
	})
}

// recovered is h's answer, or an internal error when it panics: a
// request of the relay must not end the process.
func (c *taskConn) recovered(ctx context.Context, req *jsonrpc.Request, h func(context.Context, *jsonrpc.Request) (json.RawMessage, error)) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("%s: internal error: %s", req.Method, clip.Line(fmt.Sprint(p)))}
		}
	}()
	return h(ctx, req)
}

// Write sends the SDK's message, with the tasks capability in the
// initialize result and each tool's taskSupport in tools/list results for
// a client that declared tasks.
func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && resp.ID.IsValid() {
		c.mu.Lock()
		isInit, isList := c.initID == resp.ID, c.lists[resp.ID]
		if isInit {
			c.initID = jsonrpc.ID{}
		}
		delete(c.lists, resp.ID)
		uses := c.uses
		c.mu.Unlock()
		switch {
		case isInit:
			c.guard.negotiated(resp.Result)
			if uses {
				resp = withResult(resp, withTasksCapability(resp.Result))
			}
		case isList:
			resp = withResult(resp, c.withTaskSupport(resp.Result))
		}
		msg = resp
	}
	return c.send(ctx, msg)
}

func (c *taskConn) send(ctx context.Context, msg jsonrpc.Message) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.Connection.Write(ctx, msg)
}

// Close ends the relay's requests, closes the connection and waits for
// the relay's goroutines.
func (c *taskConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.end()
	err := c.Connection.Close()
	c.wg.Wait()
	c.s.tasks.conn.CompareAndSwap(c, nil)
	return err
}

// withResult is resp with another result.
func withResult(resp *jsonrpc.Response, result json.RawMessage) *jsonrpc.Response {
	out := *resp
	out.Result = result
	return &out
}

// tasksCapability is what the relay declares: task-augmented tools/call,
// tasks/list and tasks/cancel.
var tasksCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

// withTasksCapability is an initialize result that declares tasks.
func withTasksCapability(result json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	var caps map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil || obj == nil || json.Unmarshal(obj["capabilities"], &caps) != nil {
		return result
	}
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	caps["tasks"] = tasksCapability
	return remarshal(result, obj, "capabilities", caps)
}

// withTaskSupport is a tools/list result whose tools say the taskSupport
// of the upstream tool they are.
func (c *taskConn) withTaskSupport(result json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil || obj == nil || json.Unmarshal(obj["tools"], &tools) != nil {
		return result
	}
	for _, t := range tools {
		var name string
		if t == nil || json.Unmarshal(t["name"], &name) != nil {
			continue
		}
		if e, ok := c.s.exposedEntry(name); ok && e.tool.TaskSupport != catalog.TaskForbidden {
			t["execution"], _ = json.Marshal(map[string]catalog.TaskSupport{"taskSupport": e.tool.TaskSupport})
		}
	}
	return remarshal(result, obj, "tools", tools)
}

// remarshal is obj with key set to v, encoded; result when that fails.
func remarshal(result json.RawMessage, obj map[string]json.RawMessage, key string, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return result
	}
	obj[key] = b
	out, err := json.Marshal(obj)
	if err != nil {
		return result
	}
	return out
}

// isObject says whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}
