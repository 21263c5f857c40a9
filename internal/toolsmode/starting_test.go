package toolsmode

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A call that runs out of time while its server starts says it was still
// starting, in the words mcp call uses; one that runs out later, that the
// server did not answer in time.
func TestCallError_starting(t *testing.T) {
	s := &Server{opts: Options{CallTimeout: 2 * time.Second}}
	e := &entry{name: "slow__op", tool: catalog.Tool{Server: "slow", Name: "op"}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&upstream.UnavailableError{Server: "slow", Err: &upstream.StartingError{Timeout: true}},
			"slow__op timed out after 2s: server slow was still starting"},
		{&upstream.UnavailableError{Server: "slow", Err: fmt.Errorf("tools/call: %w", context.DeadlineExceeded)},
			"slow__op timed out after 2s: server slow did not answer in time"},
		{context.DeadlineExceeded, "slow__op timed out after 2s: server slow did not answer in time"},
	} {
		r := s.callError(e, c.err)
		text := ""
		if len(r.Content) == 1 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !r.IsError || text != c.want {
			t.Errorf("callError(%v) = %q (error %v), want %q", c.err, text, r.IsError, c.want)
		}
	}
}
