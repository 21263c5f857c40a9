package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ModernRefusal is why a modern-only fake refuses a request.
func modernRefusal(method string, params json.RawMessage) string {
	if method == string(mcp.MethodInitialize) {
		return "this server speaks only " + mcp.LATEST_PROTOCOL_VERSION + ", without initialize"
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	for _, k := range []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo} {
		if _, ok := p.Meta[k]; !ok {
			return "the request's _meta lacks " + k
		}
	}
	if v := string(p.Meta[mcp.MetaKeyProtocolVersion]); v != `"`+mcp.LATEST_PROTOCOL_VERSION+`"` {
		return "the request's _meta names protocol version " + v
	}
	return ""
}

// modernOnly passes the requests of a 2026-07-28 client from r on, and
// answers initialize, and any request without that revision's _meta, with
// an unsupported-protocol-version error written to out.
func modernOnly(r io.Reader, out io.Writer) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		in := bufio.NewScanner(r)
		in.Buffer(make([]byte, 1<<20), 64<<20)
		for in.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			line := in.Bytes()
			if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method != "" {
				if why := modernRefusal(m.Method, m.Params); why != "" {
					fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":{"supported":[%q]}}}`+"\n",
						m.ID, mcp.UNSUPPORTED_PROTOCOL_VERSION, why, mcp.LATEST_PROTOCOL_VERSION)
					continue
				}
			}
			if _, err := pw.Write(append(bytes.Clone(line), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(in.Err())
	}()
	return pr
}

// ModernHTTP wraps a streamable HTTP handler into one that speaks only
// 2026-07-28: a POST of initialize, or of a request without that
// revision's _meta or headers, is answered with HTTP 400, as the
// conformance suite's servers do. Requests records every POST's headers,
// method and body.
type ModernHTTP struct {
	Next http.Handler
	// Lenient records without refusing anything: for a server of the
	// handshake.
	Lenient bool

	mu    sync.Mutex
	posts []Post
}

// Post is one request a ModernHTTP saw.
type Post struct {
	Method string
	Header http.Header
	Body   json.RawMessage
}

func (m *ModernHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && !m.Lenient {
		http.Error(w, "no GET stream on "+mcp.LATEST_PROTOCOL_VERSION, http.StatusMethodNotAllowed)
		return
	}
	if r.Method != http.MethodPost {
		m.Next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	m.mu.Lock()
	m.posts = append(m.posts, Post{Method: msg.Method, Header: r.Header.Clone(), Body: body})
	m.mu.Unlock()
	if len(msg.ID) > 0 && msg.Method != "" && !m.Lenient {
		why := modernRefusal(msg.Method, msg.Params)
		if why == "" && r.Header.Get(mcp.HeaderMethod) != msg.Method {
			why = "the Mcp-Method header does not name " + msg.Method
		}
		if why == "" && r.Header.Get(mcp.HeaderProtocolVersion) != mcp.LATEST_PROTOCOL_VERSION {
			why = "the MCP-Protocol-Version header is " + r.Header.Get(mcp.HeaderProtocolVersion)
		}
		if why != "" {
			http.Error(w, why, http.StatusBadRequest)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	m.Next.ServeHTTP(w, r)
}

// Posts are the requests seen so far whose method has prefix.
func (m *ModernHTTP) Posts(prefix string) []Post {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Post
	for _, p := range m.posts {
		if strings.HasPrefix(p.Method, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// ServeModern serves the fake tool set in this process over streamable
// HTTP, speaking only 2026-07-28, for the test; it returns the endpoint's
// URL.
func ServeModern(t testing.TB) string {
	ts := httptest.NewServer(&ModernHTTP{Next: server.NewStreamableHTTPServer(FakeMCPServer())})
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}
