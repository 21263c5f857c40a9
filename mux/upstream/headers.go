package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
)

// Every POST of a streamable HTTP connection, whatever its revision,
// carries the headers 2026-07-28 asks for: Mcp-Method, Mcp-Name (the tool,
// prompt or resource a request names), and the arguments a tool marks
// x-mcp-header as Mcp-Param-* (mcp-go's encoding: Base64 form for unsafe
// values, null left out). A server of the handshake ignores them.

// paramHeaders are the tools of a connection whose arguments travel in
// headers, by name, from its last tools/list; listed says there was one.
type paramHeaders struct {
	mu     sync.Mutex
	tools  map[string]*mcp.Tool
	listed bool
}

// remember keeps the tools of a listing whose arguments travel in headers.
func (p *paramHeaders) remember(tools []catalog.Tool) {
	byName := map[string]*mcp.Tool{}
	for _, t := range tools {
		if mt := headerTool(t.Name, t.InputSchema); mt != nil {
			byName[t.Name] = mt
		}
	}
	p.mu.Lock()
	p.tools, p.listed = byName, true
	p.mu.Unlock()
}

// headerTool is the tool as mcp-go's header functions take it, or nil when
// no argument of it travels in a header.
func headerTool(name string, schema json.RawMessage) *mcp.Tool {
	if !bytes.Contains(schema, []byte("x-mcp-header")) {
		return nil
	}
	mt := &mcp.Tool{Name: name, RawInputSchema: schema}
	if len(mcp.ExtractParamHeaderBindings(mt)) == 0 {
		return nil
	}
	return mt
}

// tool is the remembered tool name; known says a listing has been seen.
func (p *paramHeaders) tool(name string) (t *mcp.Tool, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tools[name], p.listed
}

type inputSchemaKey struct{}

// WithInputSchema returns a context whose tools/call requests take the
// tool's arguments that travel in headers from schema, the tool's input
// schema as the caller listed it (the catalog cache, say), rather than
// from the connection's own listing.
func WithInputSchema(ctx context.Context, schema json.RawMessage) context.Context {
	return context.WithValue(ctx, inputSchemaKey{}, schema)
}

// addHeaders sets the request's headers.
func (u *conn) addHeaders(ctx context.Context, req *transport.JSONRPCRequest) {
	req.Header = http.Header{mcp.HeaderMethod: {req.Method}}
	if req.Method != string(mcp.MethodToolsCall) {
		return
	}
	params, _ := json.Marshal(req.Params)
	var call struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(params, &call)
	if v, ok := mcp.EncodeHeaderValue(call.Name); ok {
		req.Header.Set(mcp.HeaderName, v)
	}
	tool, _ := u.params.tool(call.Name)
	if schema, ok := ctx.Value(inputSchemaKey{}).(json.RawMessage); ok {
		tool = headerTool(call.Name, schema)
	}
	for k, v := range mcp.GenerateParamHeaders(tool, params) {
		req.Header.Set(k, v)
	}
}

// needsListing says a tools/call must list the tools first, to know which
// of its arguments travel in headers.
func (u *conn) needsListing(ctx context.Context) bool {
	if u.params == nil {
		return false
	}
	if _, given := ctx.Value(inputSchemaKey{}).(json.RawMessage); given {
		return false
	}
	_, known := u.params.tool("")
	return !known
}

// methodHeaders gives the POSTs that do not come from a request of ours
// (notifications) their Mcp-Method header.
func methodHeaders(req *http.Request) {
	if req.GetBody == nil {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	var m struct {
		Method string `json:"method"`
	}
	if json.NewDecoder(io.LimitReader(body, maxServerRequest)).Decode(&m) == nil && m.Method != "" {
		req.Header.Set(mcp.HeaderMethod, m.Method)
	}
}
