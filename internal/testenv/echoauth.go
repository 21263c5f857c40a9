package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// authMark stands, in what EchoAuth's server says, for the Authorization
// header of the request it answers.
const authMark = "@AUTHORIZATION@"

// EchoAuth serves, in this process over streamable HTTP (both the
// handshake and 2026-07-28), an MCP server that repeats the Authorization
// header of each request in what it says about itself, as a careless
// server would: its instructions, and the title, description, a
// parameter's description and default of its tool "lookup". It answers
// POSTs only. It returns the endpoint's URL.
func EchoAuth(t testing.TB) string {
	s := server.NewMCPServer("echoauth", "1.0.0", server.WithInstructions("Send "+authMark+" with every request."))
	s.AddTool(mcp.NewTool("lookup", mcp.WithToolTitle("Lookup as "+authMark),
		mcp.WithDescription("Looks a name up, authorized by "+authMark),
		mcp.WithString("q", mcp.Description("the name, sent with "+authMark), mcp.DefaultString(authMark))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("found " + req.GetString("q", "")), nil
		})
	h := server.NewStreamableHTTPServer(s, server.WithStateLess(true))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			// No stream of its own: nothing holds a connection open.
			http.Error(w, "only POST", http.StatusMethodNotAllowed)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		quoted, _ := json.Marshal(r.Header.Get("Authorization"))
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte(authMark), quoted[1:len(quoted)-1])
		maps.Copy(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL + "/mcp"
}
