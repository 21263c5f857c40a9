package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/redirect"
	"github.com/mcpsh/mcp/manifests"
)

// sseResponseTimeout replaces mcp-go's 60 s per-request limit on SSE: the
// caller's context is the timeout.
const sseResponseTimeout = time.Duration(1<<63 - 1)

// roundTripper is the HTTP transport of one connection. It bounds response
// bodies and remembers the first error status seen while connecting, which
// mcp-go does not always report.
type roundTripper struct {
	base       *http.Transport
	max        int64
	connecting atomic.Bool
	status     atomic.Int32
	// streamBroken is called when a body that belongs to no request (the
	// SSE stream) breaks a limit, with ErrMessageTooLarge or
	// ErrMessageTooDeep.
	streamBroken func(error)
	// onMessage, if set, sees the data of every message event of event
	// streams, as the transport reads them.
	onMessage func(data []byte)
	// onReply, if set, sees every message of event streams and every JSON
	// body before the transport reads it (checkReply).
	onReply func(data []byte)
	// listening marks the connection of a streamable HTTP client that
	// keeps a GET stream open.
	listening bool
	// standard marks a streamable HTTP connection, whose every POST names
	// its method in Mcp-Method (headers.go).
	standard bool
}

func newRoundTripper(max int64, streamBroken func(error)) *roundTripper {
	rt := &roundTripper{
		base:         http.DefaultTransport.(*http.Transport).Clone(),
		max:          max,
		streamBroken: streamBroken,
	}
	rt.connecting.Store(true)
	return rt
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.standard && req.Method == http.MethodPost && req.Header.Get(mcp.HeaderMethod) == "" {
		req = req.Clone(req.Context())
		methodHeaders(req)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 && t.connecting.Load() {
		t.status.CompareAndSwap(0, int32(resp.StatusCode))
	}
	if t.listening && req.Method == http.MethodGet && refusesStream(resp.StatusCode) {
		// mcp-go tries a refused GET stream again every second for as long
		// as the connection lives, unless the answer is 405 ("no stream
		// here"). A client error will not go away by asking again.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.StatusCode, resp.Status = http.StatusMethodNotAllowed, "405 Method Not Allowed"
		resp.Body = http.NoBody
		return resp, nil
	}
	st, _ := req.Context().Value(reqStateKey{}).(*reqState)
	trip := func(err error) {
		if st != nil {
			st.broke.Store(&err)
		} else if t.streamBroken != nil {
			t.streamBroken(err)
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		body := resp.Body
		resp.Body = &lineLimitBody{c: body, lineLimitReader: lineLimitReader{r: body, max: t.max, done: func(err error) {
			if errors.Is(err, ErrMessageTooLarge) || errors.Is(err, ErrMessageTooDeep) {
				trip(err)
			}
		}}}
		if t.onMessage != nil || t.onReply != nil {
			resp.Body = &sseTap{ReadCloser: resp.Body, max: t.max, onMessage: t.tapped}
		}
	} else {
		resp.Body = &limitBody{ReadCloser: resp.Body, left: t.max, trip: trip}
		if mt == "application/json" && t.onReply != nil {
			t.checkBody(resp)
		}
	}
	return resp, nil
}

// tapped hands an event's data to onReply and, when it is small enough to
// be a request from the server, to onMessage.
func (t *roundTripper) tapped(data []byte) {
	if t.onReply != nil {
		t.onReply(data)
	}
	if t.onMessage != nil && int64(len(data)) <= maxServerRequest {
		t.onMessage(data)
	}
}

// checkBody reads a JSON body whole, within its limit, and has onReply
// see it before the transport reads it again from memory. A body that
// cannot be read fails the transport's read as it would have.
func (t *roundTripper) checkBody(resp *http.Response) {
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), errReader{err}))
		return
	}
	t.onReply(data)
	resp.Body = io.NopCloser(bytes.NewReader(data))
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// refusesStream says whether a GET answered with status will be answered
// the same way again: a client error other than those that change with
// time or credentials (401, 403, 408, 429), or that mcp-go handles itself
// (404: the session ended).
func refusesStream(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusRequestTimeout, http.StatusTooManyRequests:
		return false
	}
	return status >= 400 && status < 500
}

func (t *roundTripper) closeIdle() { t.base.CloseIdleConnections() }

// redirectPolicy is how a connection to ep follows redirects: the rule of
// every client of mcp (internal/redirect), with the headers ep's
// configuration sets kept at its origin.
func redirectPolicy(ep manifests.Endpoint) func(*http.Request, []*http.Request) error {
	return redirect.Policy{Configured: slices.Collect(maps.Keys(ep.Headers))}.Check
}

// refusedRedirect is the redirect a request was refused at, when err says
// so, without what the transport and net/http wrapped it in (a location
// twice over): otherwise err.
func refusedRedirect(err error) error {
	if re, ok := errors.AsType[*redirect.Error](err); ok {
		return re
	}
	return err
}

// connectHTTP connects over streamable HTTP, speaking revision. A legacy
// handshake that the server refuses, with a 4xx other than 401/403 or a
// JSON-RPC error that says so, gives *refusedError: negotiate then tries
// 2026-07-28, and for a url without type SSE.
func connectHTTP(ctx context.Context, ep manifests.Endpoint, opts Options, revision string) (*conn, error) {
	u := newConn(ctx, ep.ID, manifests.TransportHTTP, opts)
	u.secret = opts.secretsFor(ep)
	u.rt = newRoundTripper(opts.MaxMessageBytes, nil)
	u.rt.standard = true
	u.rt.onReply = u.checkReply
	u.revision = revision
	u.params = &paramHeaders{}
	hc := &http.Client{Transport: opts.httpTransport(ep, u.rt, u.secret), CheckRedirect: redirectPolicy(ep)}
	topts := []transport.StreamableHTTPCOption{
		transport.WithHTTPHeaders(maps.Clone(ep.Headers)),
		transport.WithHTTPBasicClient(hc),
		transport.WithHTTPLogger(u.transportLog()),
	}
	if revision == Modern {
		// No GET stream on 2026-07-28: list changes come on a
		// subscriptions/listen stream.
		u.modern = newModern(revision, u.capabilities(), opts)
	} else {
		// The GET stream carries what a server sends outside any request:
		// requests for input made outside a tool call's own stream, and
		// tools/list_changed.
		u.rt.listening = true
		topts = append(topts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(ep.URL, topts...)
	if err != nil {
		u.Close()
		return nil, u.unavailable(u.redact(err))
	}
	if u.modern != nil {
		tr.SetProtocolVersion(revision)
	}
	u.tr = tr
	if u.relay != nil {
		endpoint, _ := url.Parse(ep.URL) // NewStreamableHTTP parsed it
		u.tr = &relayedHTTP{StreamableHTTP: tr, u: u, hc: hc, url: endpoint, head: ep.Headers}
	}
	u.c = u.newClient(u.tr)
	// Requests carry ctx, so ending it ends the attempt; nothing to abort.
	if err := u.handshake(ctx, opts, func() {}); err != nil {
		status := int(u.rt.status.Load())
		sse := status >= 400 && status < 500 && status != http.StatusUnauthorized && status != http.StatusForbidden ||
			status == 0 && errors.Is(err, transport.ErrLegacySSEServer)
		refused := u.modern == nil && ctx.Err() == nil && (sse || status == 0 && refusesHandshake(err))
		err = u.httpConnectError(ctx, opts, err, status)
		u.Close()
		if refused {
			return nil, &refusedError{err: err, status: status, sse: sse}
		}
		return nil, err
	}
	u.rt.connecting.Store(false)
	return u, nil
}

// connectSSE connects over the legacy HTTP+SSE transport. fellBackFrom is
// the status streamable HTTP answered, when this is a fallback.
func connectSSE(ctx context.Context, ep manifests.Endpoint, opts Options, fellBackFrom int) (*conn, error) {
	u := newConn(ctx, ep.ID, manifests.TransportSSE, opts)
	u.secret = opts.secretsFor(ep)
	u.rt = newRoundTripper(opts.MaxMessageBytes, func(err error) {
		u.setDead(u.unavailable(u.limitError(err)))
	})
	// mcp-go's SSE transport drops the requests a server sends; the
	// connection watches the stream and answers them itself.
	u.rt.onMessage = u.onSSEMessage
	u.rt.onReply = u.checkReply
	hc := &http.Client{Transport: opts.httpTransport(ep, u.rt, u.secret), CheckRedirect: redirectPolicy(ep)}
	tr, err := transport.NewSSE(ep.URL,
		transport.WithHeaders(maps.Clone(ep.Headers)),
		transport.WithHTTPClient(hc),
		transport.WithSSELogger(u.transportLog()),
		transport.WithEndpointTimeout(opts.ConnectTimeout),
		transport.WithResponseTimeout(sseResponseTimeout),
	)
	if err != nil {
		u.Close()
		return nil, u.unavailable(u.redact(err))
	}
	u.tr = tr
	u.c = u.newClient(tr)
	u.reply = func(ctx context.Context, msg []byte) error {
		return postMessage(ctx, hc, tr.GetEndpoint(), ep.Headers, msg)
	}
	// The SSE transport neither reconnects nor fails waiting requests when
	// its stream ends; make both explicit.
	u.c.OnConnectionLost(func(err error) {
		u.setDead(u.unavailable(u.redact(fmt.Errorf("SSE stream lost: %w", err))))
		_ = tr.Close()
	})
	if err := u.handshake(ctx, opts, func() { _ = tr.Close() }); err != nil {
		err = u.httpConnectError(ctx, opts, err, int(u.rt.status.Load()))
		u.Close()
		var ue *UnavailableError
		if fellBackFrom != 0 && errors.As(err, &ue) {
			ue.Err = fmt.Errorf("streamable HTTP answered %s, then SSE: %w", httpStatusText(fellBackFrom), ue.Err)
		}
		return nil, err
	}
	u.rt.connecting.Store(false)
	return u, nil
}

// replyTimeout bounds sending the answer to a request from the server.
const replyTimeout = 30 * time.Second

// onSSEMessage looks at each message of an SSE stream and answers the
// requests among them. It runs on the transport's read goroutine, so the
// answer is sent from another.
func (u *conn) onSSEMessage(data []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if u.reply == nil || json.Unmarshal(data, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	u.goOwned(func() { u.answerSSE(m.ID, m.Method, m.Params) })
}

// answerSSE answers one request from the server as the mcp-go client does
// on the other transports: ping, elicitation/create (Elicit), and an error
// for any other method.
func (u *conn) answerSSE(id json.RawMessage, method string, params json.RawMessage) {
	msg := map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id}
	switch method {
	case string(mcp.MethodPing):
		msg["result"] = struct{}{}
	case string(mcp.MethodElicitationCreate):
		var p mcp.ElicitationParams
		if json.Unmarshal(params, &p) != nil || p.Validate() != nil {
			msg["error"] = map[string]any{"code": mcp.INVALID_PARAMS, "message": "invalid elicitation/create params"}
			break
		}
		// A relayed request waits for a person; only the reply is bounded.
		res, err := u.Elicit(u.life, mcp.ElicitationRequest{Params: p})
		if err != nil {
			msg["error"] = map[string]any{"code": mcp.INTERNAL_ERROR, "message": err.Error()}
			break
		}
		msg["result"] = res
	default:
		msg["error"] = map[string]any{"code": mcp.METHOD_NOT_FOUND, "message": "mcp does not handle " + method}
	}
	ctx, cancel := context.WithTimeout(u.life, replyTimeout)
	defer cancel()
	body, err := json.Marshal(msg)
	if err == nil {
		err = u.reply(ctx, body)
	}
	if err != nil {
		u.log.Warn("answering a request from the server failed", "method", method, "err", u.redact(err))
	}
}

// postMessage posts one JSON-RPC message to an SSE server's message endpoint.
func postMessage(ctx context.Context, hc *http.Client, endpoint *url.URL, headers map[string]string, msg []byte) error {
	if endpoint == nil {
		return errors.New("the server has not named its message endpoint")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(msg))
	if err != nil {
		return err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errors.New(httpStatusText(resp.StatusCode))
	}
	return nil
}

// maxServerRequest bounds a request from the server that an SSE connection
// answers; the stream's larger messages (tool results) are not requests.
const maxServerRequest = 1 << 20

// sseTap passes an event stream through, handing the data of each message
// event (as the WHATWG HTML standard defines server-sent events) to
// onMessage. Events whose lines or data exceed max are not handed on.
type sseTap struct {
	io.ReadCloser
	max       int64
	onMessage func([]byte)

	line    []byte
	data    []byte
	event   string
	hasData bool
	tooLong bool // the current event is dropped
	afterCR bool // the last byte ended a line with \r
}

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.feed(p[:n])
	return n, err
}

// feed splits b into lines, which end at \n, \r or \r\n.
func (s *sseTap) feed(b []byte) {
	for len(b) > 0 {
		if s.afterCR && b[0] == '\n' {
			b = b[1:]
			s.afterCR = false
			continue
		}
		s.afterCR = false
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			s.appendLine(b)
			return
		}
		s.appendLine(b[:i])
		s.afterCR = b[i] == '\r'
		s.endLine()
		b = b[i+1:]
	}
}

func (s *sseTap) appendLine(b []byte) {
	if int64(len(s.line)+len(b)) > s.max {
		s.tooLong = true
		return
	}
	s.line = append(s.line, b...)
}

func (s *sseTap) endLine() {
	line := s.line
	s.line = s.line[:0]
	switch {
	case len(line) == 0:
		if s.hasData && !s.tooLong && (s.event == "" || s.event == "message") {
			s.onMessage(s.data)
		}
		s.data, s.event, s.hasData, s.tooLong = s.data[:0], "", false, false
	case line[0] == ':': // a comment
	default:
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			s.event = string(value)
		case "data":
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			if int64(len(s.data)+len(value)) > s.max {
				s.tooLong = true
			} else {
				s.data = append(s.data, value...)
			}
			s.hasData = true
		}
	}
}

// httpConnectError explains a failed HTTP handshake by its status when there
// was one: the bodies of error responses are not repeated.
func (u *conn) httpConnectError(ctx context.Context, opts Options, err error, status int) error {
	var invalid *InvalidReplyError
	switch {
	case ctx.Err() != nil, errors.As(err, &invalid):
		// What the server sent says more than a status seen meanwhile.
	case status == http.StatusUnauthorized:
		// Keep the chain: it holds the auth metadata the caller may need.
		return u.unavailable(u.redact(fmt.Errorf("%w: %w", statusError(status), err)))
	case status >= 400:
		return u.unavailable(statusError(status))
	}
	return u.connectError(ctx, opts, err)
}

// statusError is an HTTP status that answered the start of a connection.
type statusError int

func (s statusError) Error() string { return httpStatusText(int(s)) }
