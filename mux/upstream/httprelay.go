package upstream

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// relayedHTTP is the streamable HTTP transport of a connection that relays
// requests for input. mcp-go gives its handler of a server's request 30 s
// and sends the answer within them, which a person filling in a form may
// well exceed: the answer was lost and the call waited for it. Here
// elicitation/create is answered on a goroutine of the connection, for as
// long as the request whose stream carried it (or the connection, for
// the GET stream), and the answer is posted by the connection.
type relayedHTTP struct {
	*transport.StreamableHTTP
	u    *conn
	hc   *http.Client
	url  *url.URL
	head map[string]string
}

// SetRequestHandler implements transport.BidirectionalInterface: mcp-go's
// handler answers every request but elicitation/create, which it answers
// off mcp-go's clock.
func (t *relayedHTTP) SetRequestHandler(h transport.RequestHandler) {
	t.StreamableHTTP.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method != string(mcp.MethodElicitationCreate) {
			return h(ctx, req)
		}
		parent := t.u.life
		if st, ok := ctx.Value(reqStateKey{}).(*reqState); ok && st.ctx != nil {
			parent = st.ctx
		}
		t.u.goOwned(func() { t.answer(parent, h, req) })
		return nil, nil // mcp-go sends nothing; answer does
	})
}

// answer has h answer req under ctx and posts the answer to the server.
func (t *relayedHTTP) answer(ctx context.Context, h transport.RequestHandler, req transport.JSONRPCRequest) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.u.life, cancel)()
	resp, err := h(ctx, req)
	if err != nil {
		resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
	}
	if resp == nil {
		return
	}
	body, err := json.Marshal(resp)
	if err == nil {
		err = t.post(body)
	}
	if err != nil {
		t.u.log.Warn("answering a request from the server failed", "method", req.Method, "err", t.u.redact(err))
	}
}

// post sends one JSON-RPC response as mcp-go would: to the endpoint, with
// the connection's headers, session and protocol revision.
func (t *relayedHTTP) post(body []byte) error {
	ctx, cancel := context.WithTimeout(t.u.life, replyTimeout)
	defer cancel()
	head := maps.Clone(t.head)
	if head == nil {
		head = map[string]string{}
	}
	head["Accept"] = "application/json, text/event-stream"
	if id := t.GetSessionId(); id != "" {
		head[transport.HeaderKeySessionID] = id
	}
	if v := t.u.ProtocolVersion(); v != "" {
		head[transport.HeaderKeyProtocolVersion] = v
	}
	return postMessage(ctx, t.hc, t.url, head, body)
}
