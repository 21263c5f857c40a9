package testenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// ModeMalformed, followed by the name of one of MalformedShapes
// ("malformed:call-content"), is a hand-written stdio server that answers
// one method with a reply of the wrong shape and the others well. Its one
// tool is "t".
const ModeMalformed = "malformed:"

// MalformedShape is one way a server's reply can be wrong.
type MalformedShape struct {
	Name string
	// Method is the request whose reply is wrong: "initialize",
	// "tools/list" or "tools/call"; "" for a server that exits before it
	// answers anything.
	Method string
	// Reply is the whole reply line, %s standing for the request's id.
	Reply string
}

const malformedInit = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"malformed","version":"1"}}`

// MalformedShapes are the replies of the wrong shape a server can send:
// results that are not what the method returns, error objects that are
// not JSON-RPC's, and envelopes that are not JSON-RPC 2.0.
var MalformedShapes = []MalformedShape{
	{"exit-at-start", "", ""},
	{"initialize-not-object", "initialize", `{"jsonrpc":"2.0","id":%s,"result":"ready"}`},
	{"initialize-version", "initialize", `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":5,"capabilities":{},"serverInfo":{"name":"m","version":"1"}}}`},
	{"initialize-jsonrpc-1.0", "initialize", `{"jsonrpc":"1.0","id":%s,"result":` + malformedInit + `}`},
	{"list-null", "tools/list", `{"jsonrpc":"2.0","id":%s,"result":null}`},
	{"list-string", "tools/list", `{"jsonrpc":"2.0","id":%s,"result":"tools"}`},
	{"list-array", "tools/list", `{"jsonrpc":"2.0","id":%s,"result":[{"name":"t","inputSchema":{"type":"object"}}]}`},
	{"list-tools", "tools/list", `{"jsonrpc":"2.0","id":%s,"result":{"tools":"none"}}`},
	{"list-cursor", "tools/list", `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":5}}`},
	{"call-content", "tools/call", `{"jsonrpc":"2.0","id":%s,"result":{"content":"done"}}`},
	{"call-iserror", "tools/call", `{"jsonrpc":"2.0","id":%s,"result":{"content":[],"isError":"yes"}}`},
	{"call-null", "tools/call", `{"jsonrpc":"2.0","id":%s,"result":null}`},
	{"call-not-object", "tools/call", `{"jsonrpc":"2.0","id":%s,"result":[1,2]}`},
	{"error-code", "tools/call", `{"jsonrpc":"2.0","id":%s,"error":{"code":"x","message":5}}`},
	{"error-message", "tools/call", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":5}}`},
	{"error-not-object", "tools/call", `{"jsonrpc":"2.0","id":%s,"error":"failed"}`},
	{"result-and-error", "tools/call", `{"jsonrpc":"2.0","id":%s,"result":{"content":[]},"error":{"code":-32000,"message":"no"}}`},
	{"neither", "tools/call", `{"jsonrpc":"2.0","id":%s}`},
	{"jsonrpc-number", "tools/call", `{"jsonrpc":2,"id":%s,"result":{"content":[]}}`},
	{"jsonrpc-1.0", "tools/call", `{"jsonrpc":"1.0","id":%s,"result":{"content":[]}}`},
	{"jsonrpc-3.0", "tools/call", `{"jsonrpc":"3.0","id":%s,"result":{"content":[]}}`},
	{"jsonrpc-missing", "tools/call", `{"id":%s,"result":{"content":[]}}`},
}

// InvalidTools is a tools/list of two tools, t and u, among entries
// that cannot be tools: a name that is a number, an object or empty, no
// name (but a title of escape sequences), and an entry that is a string.
// The list is valid, and the entries are not offered.
var InvalidTools = MalformedShape{"invalid-tools", "tools/list", `{"jsonrpc":"2.0","id":%s,"result":{"tools":[` +
	`{"name":"t","inputSchema":{"type":"object"}},` +
	`{"name":42,"inputSchema":{"type":"object"}},` +
	`{"title":"Nameless \u001b]0;owned\u0007\u001b[2J","inputSchema":{"type":"object"}},` +
	`{"name":"","inputSchema":{"type":"object"}},` +
	`{"name":{"text":"\u001b[31mred"},"inputSchema":{"type":"object"}},` +
	`"just a string",` +
	`{"name":"u","inputSchema":{"type":"object"}}]}}`}

// serveMalformed serves as MalformedShapes' shape named name says.
func serveMalformed(name string) int {
	var shape MalformedShape
	for _, s := range append(MalformedShapes, InvalidTools) {
		if s.Name == name {
			shape = s
		}
	}
	if shape.Name == "" {
		fmt.Fprintf(os.Stderr, "malformed: no shape %q\n", name)
		return 2
	}
	if shape.Method == "" {
		fmt.Fprintln(os.Stderr, "malformed: cannot open the database")
		return 3
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue
		}
		fmt.Println(shape.ReplyTo(req.Method, req.ID))
	}
	return 0
}

// ReplyTo is the server's reply to a request of method with id: Reply for
// the shape's method, a good one for the others.
func (s MalformedShape) ReplyTo(method string, id json.RawMessage) string {
	reply := `{"jsonrpc":"2.0","id":%s,"result":{}}`
	switch method {
	case s.Method:
		reply = s.Reply
	case "initialize":
		reply = `{"jsonrpc":"2.0","id":%s,"result":` + malformedInit + `}`
	case "tools/list":
		reply = `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`
	case "tools/call":
		reply = `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"fine"}]}}`
	}
	return strings.ReplaceAll(reply, "%s", string(id))
}
