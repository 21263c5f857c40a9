package authtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// What Options.Echo and the failures a test turns on make the servers do.

// FailLists makes tools/list fail (with Echo, quoting the request's
// Authorization header), or work again.
func (s *Server) FailLists(fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLists = fail
}

// FailRefresh makes refreshes fail with 503 temporarily_unavailable (with
// Echo, quoting the request), or work again.
func (s *Server) FailRefresh(fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRefresh = fail
}

type authorizationKey struct{}

// addEchoTools adds the tools of Options.Echo.
func addEchoTools(srv *server.MCPServer) {
	authorization := func(ctx context.Context) string {
		a, _ := ctx.Value(authorizationKey{}).(string)
		return a
	}
	srv.AddTool(mcp.NewTool("echo_auth", mcp.WithDescription("Fails, quoting the Authorization header")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("denied: Authorization: %s", authorization(ctx))
		})
	srv.AddTool(mcp.NewTool("ask_auth", mcp.WithDescription("Asks for input, quoting the Authorization header")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message:         "confirm the login " + authorization(ctx),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean", "default": true}}},
			}})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText("answered " + string(res.Action)), nil
		})
}

// echoListError answers a tools/list after FailLists with a JSON-RPC error
// (quoting the Authorization header with Echo), and says whether it did.
func (s *Server) echoListError(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	fail := s.failLists
	s.mu.Unlock()
	if !fail || r.Method != http.MethodPost {
		return false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/list" {
		return false
	}
	e := map[string]any{"code": -32603, "message": "listing is broken"}
	if s.opts.Echo {
		e["message"] = "listing is broken for Authorization: " + r.Header.Get("Authorization")
		e["data"] = map[string]string{"authorization": r.Header.Get("Authorization")}
	}
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": e})
	return true
}

// echo quotes, with Options.Echo, what a request to the authorization
// server carried: its Authorization header and its body raw.
func (s *Server) echo(r *http.Request, raw []byte) string {
	if !s.opts.Echo {
		return ""
	}
	var said []string
	if a := r.Header.Get("Authorization"); a != "" {
		said = append(said, "Authorization: "+a)
	}
	return " (" + strings.Join(append(said, "request "+string(raw)), ", ") + ")"
}
