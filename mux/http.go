package mux

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

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
	// streamTooLarge is called when a body that belongs to no request (the
	// SSE stream) breaks the limit.
	streamTooLarge func()
}

func newRoundTripper(max int64, streamTooLarge func()) *roundTripper {
	rt := &roundTripper{
		base:           http.DefaultTransport.(*http.Transport).Clone(),
		max:            max,
		streamTooLarge: streamTooLarge,
	}
	rt.connecting.Store(true)
	return rt
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 && t.connecting.Load() {
		t.status.CompareAndSwap(0, int32(resp.StatusCode))
	}
	st, _ := req.Context().Value(reqStateKey{}).(*reqState)
	trip := func() {
		if st != nil {
			st.tooLarge.Store(true)
		} else if t.streamTooLarge != nil {
			t.streamTooLarge()
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		body := resp.Body
		resp.Body = &lineLimitBody{c: body, lineLimitReader: lineLimitReader{r: body, max: t.max, done: func(err error) {
			if errors.Is(err, ErrMessageTooLarge) {
				trip()
			}
		}}}
	} else {
		resp.Body = &limitBody{ReadCloser: resp.Body, left: t.max, trip: trip}
	}
	return resp, nil
}

func (t *roundTripper) closeIdle() { t.base.CloseIdleConnections() }

// connectHTTP connects over streamable HTTP. With auto set (a url without
// type) a 4xx other than 401/403 on initialize means a legacy server, and
// the connection falls back to SSE, as the spec's backwards compatibility
// section describes.
func connectHTTP(ctx context.Context, ep manifests.Endpoint, opts Options, auto bool) (*Conn, error) {
	u := newConn(ctx, ep.ID, manifests.TransportHTTP, opts)
	u.secret = secretsOf(ep)
	u.rt = newRoundTripper(opts.MaxMessageBytes, nil)
	tr, err := transport.NewStreamableHTTP(ep.URL,
		transport.WithHTTPHeaders(maps.Clone(ep.Headers)),
		transport.WithHTTPBasicClient(&http.Client{Transport: opts.httpTransport(ep, u.rt)}),
		transport.WithHTTPLogger(u.log),
	)
	if err != nil {
		u.Close()
		return nil, u.unavailable(redact(err, u.secret))
	}
	u.tr = tr
	u.c = client.NewClient(tr, client.WithProtocolVersion(protocolVersion))
	// Requests carry ctx, so ending it ends the attempt; nothing to abort.
	if err := u.handshake(ctx, opts, func() {}); err != nil {
		status := int(u.rt.status.Load())
		legacy := status >= 400 && status < 500 && status != http.StatusUnauthorized && status != http.StatusForbidden
		if auto && ctx.Err() == nil && (legacy || status == 0 && errors.Is(err, transport.ErrLegacySSEServer)) {
			u.Close()
			u.log.Debug("streamable HTTP refused initialize; trying SSE", "status", status)
			return connectSSE(ctx, ep, opts, status)
		}
		err = u.httpConnectError(ctx, opts, err, status)
		u.Close()
		return nil, err
	}
	u.rt.connecting.Store(false)
	return u, nil
}

// connectSSE connects over the legacy HTTP+SSE transport. fellBackFrom is
// the status streamable HTTP answered, when this is a fallback.
func connectSSE(ctx context.Context, ep manifests.Endpoint, opts Options, fellBackFrom int) (*Conn, error) {
	u := newConn(ctx, ep.ID, manifests.TransportSSE, opts)
	u.secret = secretsOf(ep)
	u.rt = newRoundTripper(opts.MaxMessageBytes, func() {
		u.setDead(u.unavailable(fmt.Errorf("%w (%d bytes)", ErrMessageTooLarge, opts.MaxMessageBytes)))
	})
	tr, err := transport.NewSSE(ep.URL,
		transport.WithHeaders(maps.Clone(ep.Headers)),
		transport.WithHTTPClient(&http.Client{Transport: opts.httpTransport(ep, u.rt)}),
		transport.WithSSELogger(u.log),
		transport.WithEndpointTimeout(opts.ConnectTimeout),
		transport.WithResponseTimeout(sseResponseTimeout),
	)
	if err != nil {
		u.Close()
		return nil, u.unavailable(redact(err, u.secret))
	}
	u.tr = tr
	u.c = client.NewClient(tr, client.WithProtocolVersion(protocolVersion))
	// The SSE transport neither reconnects nor fails waiting requests when
	// its stream ends; make both explicit.
	u.c.OnConnectionLost(func(err error) {
		u.setDead(u.unavailable(redact(fmt.Errorf("SSE stream lost: %w", err), u.secret)))
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

// httpConnectError explains a failed HTTP handshake by its status when there
// was one: the bodies of error responses are not repeated.
func (u *Conn) httpConnectError(ctx context.Context, opts Options, err error, status int) error {
	switch {
	case ctx.Err() != nil:
	case status == http.StatusUnauthorized:
		// Keep the chain: it holds the auth metadata the caller may need.
		return u.unavailable(redact(fmt.Errorf("%s: %w", httpStatusText(status), err), u.secret))
	case status >= 400:
		return u.unavailable(errors.New(httpStatusText(status)))
	}
	return u.connectError(ctx, opts, err)
}

// secretsOf lists the values of ep that must not appear in errors: header
// values and the password and query values of its URL.
func secretsOf(ep manifests.Endpoint) []string {
	var s []string
	add := func(v string) {
		if len(v) >= 4 {
			s = append(s, v)
		}
	}
	for _, v := range ep.Headers {
		add(v)
		// "Bearer xyz": the token alone must go too.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(tok)
		}
	}
	if u, err := url.Parse(ep.URL); err == nil {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	return s
}

// maxErrorText bounds the message of an error built from what a server sent.
const maxErrorText = 1000

// redactedError is err with secrets removed from its message, and the
// message bounded. Unwrap still reaches err for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	if len(msg) > maxErrorText {
		msg = strings.ToValidUTF8(msg[:maxErrorText], "") + " …"
	}
	return &redactedError{msg: msg, err: err}
}
