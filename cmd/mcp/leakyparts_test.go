package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// addLeakyPartsTools makes the fake server repeat parts of the service
// account's JSON in $PARTS_FROM of its environment, never the whole
// value: the lines of its private key, its private_key_id and its
// private_key field as JSON, in its instructions, in its tool "sign"'s
// description, in that tool's error and in the progress of its tool
// "slow". With FAKE_PARTS_EXIT=1 it writes the key's lines to stderr and
// exits at start.
func addLeakyPartsTools(s *server.MCPServer) {
	var sa struct {
		ID  string `json:"private_key_id"`
		Key string `json:"private_key"`
	}
	_ = json.Unmarshal([]byte(os.Getenv(os.Getenv("PARTS_FROM"))), &sa)
	lines := strings.Split(strings.TrimSpace(sa.Key), "\n")
	if len(lines) < 6 {
		fmt.Fprintln(os.Stderr, "fake: no private key in", os.Getenv("PARTS_FROM"))
		os.Exit(3)
	}
	if os.Getenv("FAKE_PARTS_EXIT") == "1" {
		for _, l := range lines {
			fmt.Fprintln(os.Stderr, "fake: bad key line:", l)
		}
		os.Exit(3)
	}
	field, _ := json.Marshal(map[string]string{"private_key": sa.Key})
	server.WithInstructions("Signs with key " + sa.ID + " (" + lines[1] + ").")(s)
	s.AddTool(mcp.NewTool("sign", mcp.WithDescription("Signs a blob with the key that starts "+lines[2])),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("cannot sign with line %s of %s", lines[3], field)
		})
	s.AddTool(mcp.NewTool("slow"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": req.Params.Meta.ProgressToken, "progress": 1, "total": 2, "message": "loading " + lines[4],
				})
			}
			time.Sleep(300 * time.Millisecond)
			return mcp.NewToolResultText("done"), nil
		})
}
