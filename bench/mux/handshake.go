//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// handshake is a server's own start: the time from spawning argv (in dir,
// with env) to having its answer to initialize, with initialized sent. It
// is what any client pays before its first request, and the floor under a
// cold `mcp call`. With call set it goes on as a one-shot client that
// learns the tool's schema would: tools/list, then tools/call of echo. The
// server is stopped afterwards, its whole process group with it.
func handshake(dir string, env []string, argv []string, call bool) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(argv[0], nil, argv[1:],
		transport.WithCommandFunc(func(_ context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
			cmd = exec.Command(command, args...)
			cmd.Dir, cmd.Env = dir, env
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return cmd, nil
		}))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "muxbench", Version: "0"}

	start := time.Now()
	err := c.Start(ctx)
	if err == nil {
		_, err = c.Initialize(ctx, req)
	}
	if err == nil && call {
		err = echo(ctx, c)
	}
	d := time.Since(start)

	closeErr := c.Close()
	if cmd != nil && cmd.Process != nil {
		// Whatever a runner (npx) left in the group goes too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		return 0, fmt.Errorf("%v: %w", argv, errors.Join(err, closeErr))
	}
	return d, nil
}

// echo lists the tools and calls echo, as a cold `mcp call` does.
func echo(ctx context.Context, c *client.Client) error {
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"message": "hi"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("tools/call: %w", err)
	}
	for _, content := range res.Content {
		if t, ok := content.(mcp.TextContent); ok && strings.Contains(t.Text, echoWant) {
			return nil
		}
	}
	return fmt.Errorf("tools/call echo: no %q in the result", echoWant)
}
