package testenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/manifests"
)

// RawModern is a hand-written streamable HTTP server that speaks only
// 2026-07-28 (behind ModernHTTP, so it refuses initialize and requests
// without the revision's _meta and headers). Its tools:
//
//	route {region, count, note}  arguments marked x-mcp-header Region, Count and Note; answers "routed"
//	badheader {where}            x-mcp-header on an object, which the revision forbids
//	pending                      answers with resultType "input_required", asking for nothing, every time
//	odd                          answers with resultType "banana"
//
// Its tools/list says ttlMs TTLMs (when not negative) and cacheScope
// "public"; the first BreakLists tools/list responses, and BreakCalls
// tools/call responses, break their stream before answering.
type RawModern struct {
	*ModernHTTP
	URL        string
	TTLMs      atomic.Int64
	BreakLists atomic.Int32
	BreakCalls atomic.Int32
}

// NewRawModern starts a RawModern for the test.
func NewRawModern(t testing.TB) *RawModern {
	r := &RawModern{}
	r.TTLMs.Store(-1)
	r.ModernHTTP = &ModernHTTP{Next: http.HandlerFunc(r.serve)}
	ts := httptest.NewServer(r.ModernHTTP)
	t.Cleanup(ts.Close)
	r.URL = ts.URL + "/mcp"
	return r
}

// Endpoint is the server as a manifest entry with id.
func (r *RawModern) Endpoint(id string) manifests.Endpoint {
	return manifests.Endpoint{ID: id, URL: r.URL, Type: "http"}
}

const rawModernTools = `[
 {"name":"route","inputSchema":{"type":"object","properties":{
   "region":{"type":"string","x-mcp-header":"Region"},
   "count":{"type":"integer","x-mcp-header":"Count"},
   "note":{"type":"string","x-mcp-header":"Note"}}}},
 {"name":"badheader","inputSchema":{"type":"object","properties":{"where":{"type":"object","x-mcp-header":"Where"}}}},
 {"name":"pending","inputSchema":{"type":"object"}},
 {"name":"odd","inputSchema":{"type":"object"}}]`

func (r *RawModern) serve(w http.ResponseWriter, req *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.NewDecoder(req.Body).Decode(&msg) != nil || len(msg.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch msg.Method {
	case string(mcp.MethodServerDiscover):
		result = fmt.Sprintf(`{"supportedVersions":[%q],"capabilities":{"tools":{}},"instructions":"raw modern",`+
			`"_meta":{%q:{"name":"raw","version":"1"}}}`, mcp.LATEST_PROTOCOL_VERSION, mcp.MetaKeyServerInfo)
	case string(mcp.MethodToolsList):
		if r.BreakLists.Add(-1) >= 0 {
			breakStream(w)
			return
		}
		ttl := ""
		if n := r.TTLMs.Load(); n >= 0 {
			ttl = `"ttlMs":` + strconv.FormatInt(n, 10) + `,`
		}
		result = `{` + ttl + `"cacheScope":"public","tools":` + rawModernTools + `}`
	case string(mcp.MethodToolsCall):
		if r.BreakCalls.Add(-1) >= 0 {
			breakStream(w)
			return
		}
		switch msg.Params.Name {
		case "pending":
			result = `{"resultType":"input_required","inputRequests":{}}`
		case "odd":
			result = `{"resultType":"banana","content":[]}`
		default:
			result = `{"content":[{"type":"text","text":"routed"}]}`
		}
	default:
		result = ""
	}
	w.Header().Set("Content-Type", "application/json")
	if result == "" {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, msg.ID)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
}

// breakStream starts an event stream and ends it before the response.
func breakStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": the stream breaks here\n\n")
}
