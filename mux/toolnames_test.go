package mux

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// everythingEngine serves server-everything under srv's policy.
func everythingEngine(t *testing.T, srv *catalog.ServerSurface) *Engine {
	t.Helper()
	srv.ID = "everything"
	s := &catalog.Surface{Mode: catalog.ModeCLI, Session: true, Servers: []*catalog.ServerSurface{srv}}
	e := NewEngine(s, map[string]manifests.Endpoint{"everything": testenv.EverythingStdio(t)}, os.LookupEnv, upstream.Options{})
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// A tool name with "_" for the server's "-" reaches the tool, in a surface
// of every tool and in one of exact names; a name not on the surface is
// not available (exit 3), with a suggestion among the surface's tools
// only: a near-match the surface does not authorize is never named.
func TestEngine_ToolNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		srv     *catalog.ServerSurface
		tool    string
		want    string // the tool reached, or "" when not available
		suggest string // the suggestion the error names, or "" for none
		never   string // a name the error must not hold
	}{
		{"all, underscore", &catalog.ServerSurface{All: true, Exclude: []string{"get-env"}}, "get_sum", "get-sum", "", ""},
		{"all, exact", &catalog.ServerSurface{All: true}, "get-sum", "get-sum", "", ""},
		{"exact list, underscore", &catalog.ServerSurface{Tools: []string{"echo", "get-sum"}}, "get_sum", "get-sum", "", ""},
		{"misspelled", &catalog.ServerSurface{All: true}, "get-tiny-imgae", "", "everything.get-tiny-image", ""},
		{"misspelled underscore", &catalog.ServerSurface{All: true}, "get_tiny_imgae", "", "everything.get-tiny-image", ""},
		{"excluded near-match", &catalog.ServerSurface{All: true, Exclude: []string{"get-env"}}, "get_env", "", "", "get-env"},
		{"unauthorized near-match", &catalog.ServerSurface{Tools: []string{"echo", "get-sum"}}, "get-tiny-imag", "", "", "tiny"},
		{"unauthorized near-match, all but", &catalog.ServerSurface{All: true, Exclude: []string{"get-tiny-image"}}, "get-tiny-imag", "", "", "tiny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			e := everythingEngine(t, tt.srv)
			got, err := e.Tool(ctx, "everything", tt.tool)
			if tt.want != "" {
				if err != nil || got.Name != tt.want {
					t.Fatalf("Tool(%s) = %q, %v; want %s", tt.tool, got.Name, err, tt.want)
				}
				return
			}
			var na *catalog.NotAvailableError
			if !errors.As(err, &na) || exit.Code(err) != exit.NotAvailable {
				t.Fatalf("Tool(%s) = %q, %v; want not available (exit 3)", tt.tool, got.Name, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "everything."+tt.tool+" is not available in this session") {
				t.Errorf("error %q", msg)
			}
			if tt.suggest != "" && !strings.Contains(msg, "did you mean "+tt.suggest+"?") {
				t.Errorf("error %q does not suggest %s", msg, tt.suggest)
			}
			if tt.suggest == "" && strings.Contains(msg, "did you mean") {
				t.Errorf("error %q suggests something", msg)
			}
			if tt.never != "" && strings.Contains(strings.TrimPrefix(msg, "everything."+tt.tool), tt.never) {
				t.Errorf("error %q names %s, which the surface does not authorize", msg, tt.never)
			}
		})
	}
}
