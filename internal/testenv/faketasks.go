package testenv

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ModeTasks gives the fake server task-augmented tools/call, and tools that
// require it:
//
//	taskecho {message}  "Echo: message" after 50 ms
//	taskwait            writes "started" to the file FAKE_TASK_MARK.started names,
//	                    then blocks until tasks/cancel (or a minute), which
//	                    writes "cancelled" to the file FAKE_TASK_MARK names
//	taskfail            the task fails with a JSON-RPC error
//	taskiserror         the task fails with a result that has isError
const ModeTasks = "tasks"

// taskCancelled is closed when a task is cancelled.
var taskCancelled = make(chan struct{})

// taskOptions are the server options of ModeTasks. mcp-go cancels a task
// handler's context as soon as the task is created, so taskwait learns
// of tasks/cancel from the cancellation hook.
func taskOptions() []server.ServerOption {
	hooks := &server.TaskHooks{}
	var once sync.Once
	hooks.AddOnTaskCancelled(func(ctx context.Context, m server.TaskMetrics) {
		once.Do(func() {
			if mark := os.Getenv("FAKE_TASK_MARK"); mark != "" {
				_ = os.WriteFile(mark, []byte("cancelled"), 0o600)
			}
			close(taskCancelled)
		})
	})
	return []server.ServerOption{server.WithTaskCapabilities(true, true, true), server.WithTaskHooks(hooks)}
}

func addTaskTools(s *server.MCPServer) {
	add := func(name string, h func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error), o ...mcp.ToolOption) {
		tool := mcp.NewTool(name, append([]mcp.ToolOption{mcp.WithTaskSupport(mcp.TaskSupportRequired)}, o...)...)
		s.AddTaskTool(tool, func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			res, err := h(ctx, r)
			if err != nil {
				return nil, err
			}
			return &mcp.CreateTaskResult{Content: res.Content, IsError: res.IsError}, nil
		})
	}
	add("taskecho", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(50 * time.Millisecond)
		return mcp.NewToolResultText("Echo: " + r.GetString("message", "")), nil
	}, mcp.WithString("message"))
	add("taskwait", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if mark := os.Getenv("FAKE_TASK_MARK"); mark != "" {
			_ = os.WriteFile(mark+".started", []byte("started"), 0o600)
		}
		select {
		case <-taskCancelled:
		case <-time.After(time.Minute):
		}
		return mcp.NewToolResultText("waited"), nil
	})
	add("taskfail", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("the task failed on purpose")
	})
	add("taskiserror", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the task reported an error on purpose"), nil
	})
}

// ServeFake runs the fake server over stdio in mode, for a test binary
// that names its commands (testscript) rather than reading the
// environment; it returns the exit code.
func ServeFake(mode string) int { return runFake(mode) }
