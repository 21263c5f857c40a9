package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/mark3labs/mcp-go/client/transport"
)

// mcp-go drops a reply it cannot decode (an error whose code is not a
// number, "jsonrpc":2) and takes one of any jsonrpc version: either way
// the request waits for its deadline or gets an answer that is not one. So
// each message a server sends is seen here first, as the transports read
// it (a stdio line, an event of an event stream, a JSON body), and a reply
// that answers a request of ours but is not a JSON-RPC 2.0 response fails
// that request at once with *InvalidReplyError.

// waiter is a request of ours waiting for its reply.
type waiter struct {
	method string
	fail   context.CancelCauseFunc
}

// sendWatched sends req, whose id is the string key, through the
// transport and waits for its reply; a malformed reply (checkReply) ends
// the wait with *InvalidReplyError.
func (u *conn) sendWatched(ctx context.Context, key string, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	u.waiting.Store(key, waiter{method: req.Method, fail: cancel})
	defer u.waiting.Delete(key)
	resp, err := u.tr.SendRequest(rctx, req)
	// The reply may have been taken as it was before the wait ended: the
	// check saw it first all the same.
	var ir *InvalidReplyError
	if errors.As(context.Cause(rctx), &ir) {
		return nil, ir
	}
	return resp, err
}

// checkReply looks at one message from the server before mcp-go does: a
// reply to a request of ours that is not a JSON-RPC 2.0 response fails it.
// Anything else is left to mcp-go.
func (u *conn) checkReply(data []byte) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return
	}
	if _, isRequest := m["method"]; isRequest {
		return
	}
	var key string
	if json.Unmarshal(m["id"], &key) != nil {
		return
	}
	v, ok := u.waiting.Load(key)
	if !ok {
		return
	}
	if problem := replyProblem(m); problem != "" {
		w := v.(waiter)
		w.fail(&InvalidReplyError{Server: u.server, Method: w.method, What: "reply", Problem: problem})
	}
}

// replyProblem says what makes a reply not a JSON-RPC 2.0 response, or ""
// when nothing does.
func replyProblem(m map[string]json.RawMessage) string {
	version, hasVersion := m["jsonrpc"]
	_, hasResult := m["result"]
	rpcErr, hasError := m["error"]
	switch {
	case !hasVersion:
		return `it has no "jsonrpc"; a reply says "2.0"`
	case string(bytes.TrimSpace(version)) != `"2.0"`:
		return `"jsonrpc" must be "2.0"`
	case hasResult && hasError:
		return "it has both a result and an error"
	case !hasResult && !hasError:
		return "it has neither a result nor an error"
	case hasResult:
		return ""
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(rpcErr, &e) != nil || e == nil {
		return `"error" must be an object`
	}
	var code int
	if json.Unmarshal(e["code"], &code) != nil {
		return `"error.code" must be an integer`
	}
	var msg string
	if json.Unmarshal(e["message"], &msg) != nil {
		return `"error.message" must be a string`
	}
	return ""
}

// lineTap passes r through and hands each line it reads (without its
// newline) to onLine; a line longer than max is not handed on.
type lineTap struct {
	r      io.Reader
	max    int64
	onLine func([]byte)
	line   []byte
	long   bool
}

func (t *lineTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		if int64(len(t.line)+len(part)) > t.max {
			t.long = true
		} else if !t.long {
			t.line = append(t.line, part...)
		}
		if i < 0 {
			break
		}
		if !t.long {
			t.onLine(bytes.TrimRight(t.line, "\r"))
		}
		t.line, t.long = t.line[:0], false
		b = b[i+1:]
	}
	return n, err
}
