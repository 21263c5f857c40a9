package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/manifests"
)

// RevisionMemory remembers, per endpoint, the protocol revision that
// worked when it was not the default: Modern, or "" to forget.
type RevisionMemory interface {
	Recall(ep manifests.Endpoint) string
	Remember(ep manifests.Endpoint, revision string) error
}

// refusedError is a legacy handshake the server refused: it answered
// initialize with a 4xx (over HTTP) or a JSON-RPC error saying it does not
// know the method or the version.
type refusedError struct {
	err    error
	status int // the HTTP status, 0 when there was none
	// sse says the refusal is how a legacy SSE server answers a POST (a
	// 4xx), so that a url without type may be one.
	sse bool
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// refusesHandshake says a JSON-RPC error answered initialize because the
// server does not speak the handshake or the version it asked for.
func refusesHandshake(err error) bool {
	var unsupported mcp.UnsupportedProtocolVersionError
	return errors.Is(err, mcp.ErrMethodNotFound) || errors.Is(err, mcp.ErrInvalidParams) || errors.As(err, &unsupported)
}

// negotiate connects to ep over kind. The first attempt speaks the pinned
// revision, else the remembered one, else the legacy handshake, which
// costs today's servers nothing. Unless pinned: a refused handshake is
// tried again with 2026-07-28, and a remembered 2026-07-28 that fails is
// tried once with the handshake; what worked is remembered. A url without
// type that refuses both falls back to SSE.
func negotiate(ctx context.Context, ep manifests.Endpoint, opts Options, kind manifests.Transport) (*conn, error) {
	first, pinned := firstRevision(ep, opts)
	c, err := dial(ctx, ep, opts, kind, first)
	if err == nil || pinned || ctx.Err() != nil || kind == manifests.TransportSSE {
		return c, unrefused(err)
	}
	var ref *refusedError
	refused := errors.As(err, &ref)
	var ue *UnavailableError
	switch {
	case first != Modern && !refused:
		return nil, err
	case first == Modern && (!errors.As(err, &ue) || isAuth(err)):
		return nil, err
	}
	second := Modern
	if first == Modern {
		second = protocolVersion
	}
	c, err2 := dial(ctx, ep, opts, kind, second)
	if err2 == nil {
		remember(ep, opts, second)
		return c, nil
	}
	if kind == manifests.TransportAuto && ctx.Err() == nil && (refused || errors.As(err2, &ref)) && ref.sse {
		// Neither revision over streamable HTTP: a legacy SSE server.
		u, err := connectSSE(ctx, ep, opts, ref.status)
		if err == nil {
			remember(ep, opts, "")
		}
		return u, err
	}
	return nil, both(unrefused(err), first, unrefused(err2), second)
}

// firstRevision is the revision of the first attempt, and whether the
// endpoint pins it.
func firstRevision(ep manifests.Endpoint, opts Options) (string, bool) {
	if ep.ProtocolVersion != "" {
		return ep.ProtocolVersion, true
	}
	if opts.Revisions != nil && opts.Revisions.Recall(ep) == Modern {
		return Modern, false
	}
	return protocolVersion, false
}

func dial(ctx context.Context, ep manifests.Endpoint, opts Options, kind manifests.Transport, revision string) (*conn, error) {
	switch kind {
	case manifests.TransportStdio:
		return connectStdio(ctx, ep, opts, revision)
	case manifests.TransportSSE:
		return connectSSE(ctx, ep, opts, 0)
	}
	return connectHTTP(ctx, ep, opts, revision)
}

// remember records what worked: Modern, or "" for the handshake.
func remember(ep manifests.Endpoint, opts Options, revision string) {
	if opts.Revisions == nil {
		return
	}
	if revision != Modern {
		revision = ""
	}
	if opts.Revisions.Recall(ep) != revision {
		// A memory that cannot be written costs only a later fallback.
		_ = opts.Revisions.Remember(ep, revision)
	}
}

// isAuth says the server asked for credentials: no other revision helps.
func isAuth(err error) bool {
	var st statusError
	return errors.As(err, &st) && (st == http.StatusUnauthorized || st == http.StatusForbidden)
}

func unrefused(err error) error {
	var ref *refusedError
	if errors.As(err, &ref) {
		return ref.err
	}
	return err
}

// both is the error of two failed attempts, saying what each answered.
func both(first error, firstRev string, second error, secondRev string) error {
	var a, b *UnavailableError
	if !errors.As(first, &a) || !errors.As(second, &b) {
		return first
	}
	return &UnavailableError{Server: a.Server, Stderr: b.Stderr,
		Err: fmt.Errorf("%w (speaking %s), then %v (speaking %s)", a.Err, firstRev, b.Err, secondRev)}
}

// initialize runs the handshake, asking for u.revision. It is sent by
// hand, not through mcp-go's client, so that it carries what every
// 2026-07-28 request does: the _meta of the revision it asks for and, over
// HTTP, the MCP-Protocol-Version header naming it (as go-sdk's client
// does). A server of that revision sees a request it can refuse in its
// own terms; one of the handshake ignores both. Errors are those of
// mcp-go's client, which connectError explains.
func (u *conn) initialize(ctx context.Context, opts Options) error {
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("mcp-initialize"),
		Method: string(mcp.MethodInitialize), Params: map[string]any{
			"protocolVersion": u.revision,
			"clientInfo":      mcp.Implementation{Name: opts.ClientName, Version: opts.ClientVersion},
			"capabilities":    u.capabilities(),
			"_meta":           requestMeta(u.revision, u.capabilities(), opts),
		}}
	if u.params != nil {
		u.addHeaders(ctx, &req)
	}
	httpConn, _ := u.tr.(transport.HTTPConnection)
	if httpConn != nil {
		httpConn.SetProtocolVersion(u.revision)
	}
	resp, err := u.sendWatched(ctx, "mcp-initialize", req)
	var invalid *InvalidReplyError
	if errors.As(err, &invalid) {
		return err
	}
	if err != nil {
		return transport.NewError(err)
	}
	if resp.Error != nil {
		return resp.Error.AsError()
	}
	var res mcp.InitializeResult
	if err := decodeResult(u.server, string(mcp.MethodInitialize), resp.Result, &res); err != nil {
		return err
	}
	if !mcp.IsValidProtocolVersion(res.ProtocolVersion) || mcp.IsModernProtocol(res.ProtocolVersion) {
		return mcp.UnsupportedProtocolVersionError{Version: res.ProtocolVersion}
	}
	if httpConn != nil {
		httpConn.SetProtocolVersion(res.ProtocolVersion)
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}
	if err := u.tr.SendNotification(ctx, n); err != nil {
		return transport.NewError(fmt.Errorf("failed to send initialized notification: %w", err))
	}
	// What the server says of itself is kept without the connection's
	// secrets, before anything else sees it.
	u.instructions, u.revision = u.secret.Text(res.Instructions), res.ProtocolVersion
	u.serverCaps = res.Capabilities
	u.logging = res.Capabilities.Logging != nil
	u.log.Debug("initialized", "protocol", res.ProtocolVersion,
		"name", u.secret.Text(res.ServerInfo.Name), "version", u.secret.Text(res.ServerInfo.Version))
	return nil
}
