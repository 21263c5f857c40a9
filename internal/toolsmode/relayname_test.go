package toolsmode

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// urlClient serves server-everything (ep) through a Relay to the official
// Go SDK's client, on revision version, which declares both modes of
// elicitation and accepts whatever it is asked. It returns the client,
// what it was asked, and what the connections warned of.
func urlClient(t *testing.T, ep manifests.Endpoint, version string) (cs *mcp.ClientSession, asked func() []*mcp.ElicitParams, warned func() []string) {
	t.Helper()
	var mu sync.Mutex
	var requests []*mcp.ElicitParams
	var warnings []string
	relay := NewRelay()
	s := &catalog.Surface{Agent: "tester", Mode: catalog.ModeTools, Servers: []*catalog.ServerSurface{
		{ID: "everything", Tools: []string{"trigger-url-elicitation", "trigger-elicitation-request"}}}}
	opts := relay.Upstream(upstream.Options{OnWarning: func(line string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, line)
	}})
	eng := mux.NewEngine(s, map[string]manifests.Endpoint{"everything": ep}, os.LookupEnv, opts)
	t.Cleanup(func() { _ = eng.Close() })
	srv, _ := newServer(t, eng, Options{Relay: relay})
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	cs = goClient(t, srv, version, &mcp.ClientOptions{Capabilities: caps,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			requests = append(requests, req.Params)
			if req.Params.Mode == "url" {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace"}}, nil
		}})
	asked = func() []*mcp.ElicitParams {
		mu.Lock()
		defer mu.Unlock()
		return append([]*mcp.ElicitParams(nil), requests...)
	}
	warned = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), warnings...)
	}
	return cs, asked, warned
}

// A relayed request for input names the server that asks: the message a
// host shows begins with the server's id, on the handshake and in rounds,
// and a form's schema is passed on as the server wrote it.
func TestServer_RelayNamesItsServer(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs, asked, _ := urlClient(t, testenv.EverythingStdio(t), version)
			args := map[string]any{"url": "https://example.com/x", "message": "Re-enter your GitHub password"}
			if got := callText(t, cs, "everything__trigger_url_elicitation", args); !strings.Contains(got, "User completed the URL elicitation flow") {
				t.Errorf("result = %s, want the client's accept", got)
			}
			callText(t, cs, "everything__trigger_elicitation_request", nil)
			got := asked()
			if len(got) != 2 {
				t.Fatalf("the client was asked %d times, want 2", len(got))
			}
			if got[0].Message != "everything: Re-enter your GitHub password" || got[0].URL != "https://example.com/x" {
				t.Errorf("the URL request reached the client as %q, %q", got[0].Message, got[0].URL)
			}
			schema, _ := got[1].RequestedSchema.(map[string]any)
			if got[1].Message != "everything: Please provide inputs for the following fields:" || schema == nil || schema["properties"] == nil {
				t.Errorf("the form reached the client as %q, schema %v", got[1].Message, got[1].RequestedSchema)
			}
		})
	}
}
