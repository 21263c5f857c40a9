package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ModeMeta adds the tools of AddMetaTools to the fake server.
const ModeMeta = "meta"

// AddMetaTools gives s two tools about a call's _meta: "meta" answers
// with the _meta it received, as JSON text; "progress" reports steps
// (default 3) steps, ms (default 50) milliseconds apart, each with the
// message "step N", to the progress token it was given, then answers
// "done" after quiet_ms (default 50) more.
func AddMetaTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("meta"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b, err := json.Marshal(r.Params.Meta)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(b)), nil
	})
	s.AddTool(mcp.NewTool("progress", mcp.WithNumber("steps"), mcp.WithNumber("ms"), mcp.WithNumber("quiet_ms")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var token mcp.ProgressToken
			if r.Params.Meta != nil {
				token = r.Params.Meta.ProgressToken
			}
			steps, step := r.GetInt("steps", 3), time.Duration(r.GetInt("ms", 50))*time.Millisecond
			for i := 1; i <= steps; i++ {
				if err := sleepCtx(ctx, step); err != nil {
					return nil, err
				}
				if token == nil {
					continue
				}
				err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": token, "progress": i, "total": steps, "message": fmt.Sprintf("step %d", i),
				})
				if err != nil {
					return nil, err
				}
			}
			// mcp-go writes notifications from a goroutine of their own:
			// without a pause the answer may overtake the last report.
			if err := sleepCtx(ctx, time.Duration(r.GetInt("quiet_ms", 50))*time.Millisecond); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("done"), nil
		})
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
