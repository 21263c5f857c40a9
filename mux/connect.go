package mux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/manifests"
)

// protocolVersion is offered in initialize. Pinning the newest version that
// still uses the initialize handshake skips mcp-go's server/discover probe,
// which costs up to five seconds against servers that ignore it.
const protocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION

// DefaultConnectTimeout bounds Connect unless Options.ConnectTimeout says otherwise.
const DefaultConnectTimeout = 30 * time.Second

// Options tune Connect. The zero value works.
type Options struct {
	// ClientName and ClientVersion are sent as clientInfo ("mcp", "dev" when empty).
	ClientName    string
	ClientVersion string
	// Logger receives the transports' logs; nil discards them.
	Logger *slog.Logger
	// ConnectTimeout bounds starting and initializing (0 means 30 s).
	ConnectTimeout time.Duration
	// Stderr, if set, receives a copy of a stdio server's stderr. Writes to
	// it are synchronous: a slow writer slows the server.
	Stderr io.Writer
	// MaxMessageBytes bounds one message from the server (0 means 64 MiB).
	MaxMessageBytes int64
	// Auth, if set, wraps the HTTP transport of a url server's connection
	// (streamable HTTP and SSE): ep is the expanded endpoint, base the
	// transport to send through. The auth package adds OAuth here; its
	// errors reach the caller as the cause of *UnavailableError.
	Auth func(ep manifests.Endpoint, base http.RoundTripper) http.RoundTripper
}

// httpTransport is the transport of an HTTP connection to ep.
func (o Options) httpTransport(ep manifests.Endpoint, base http.RoundTripper) http.RoundTripper {
	if o.Auth == nil {
		return base
	}
	return o.Auth(ep, base)
}

func (o Options) withDefaults() Options {
	if o.ClientName == "" {
		o.ClientName = "mcp"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	return o
}

// Connect starts or reaches the server ep describes and performs the
// initialize handshake. ctx bounds only the connect; the connection lives
// until Close. The Upstream returned is a *Conn.
//
// A server that cannot be started, reached or initialized gives
// *UnavailableError; for a stdio server its Stderr holds the last lines the
// server wrote.
func Connect(ctx context.Context, ep manifests.Endpoint, opts Options) (Upstream, error) {
	opts = opts.withDefaults()
	kind, err := transportOf(ep)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.ConnectTimeout, errConnectTimeout)
	defer cancel()
	switch kind {
	case manifests.TransportStdio:
		return connectStdio(ctx, ep, opts)
	case manifests.TransportSSE:
		return connectSSE(ctx, ep, opts, 0)
	default:
		return connectHTTP(ctx, ep, opts, kind == manifests.TransportAuto)
	}
}

var errConnectTimeout = errors.New("connect timed out")

// transportOf tells how ep is reached. It is deliberately small: manifests
// validates endpoints before they get here.
func transportOf(ep manifests.Endpoint) (manifests.Transport, error) {
	switch {
	case ep.Command != "" && ep.URL != "":
		return "", fmt.Errorf("server %s: both command and url are set", ep.ID)
	case ep.Command != "":
		return manifests.TransportStdio, nil
	case ep.URL == "":
		return "", fmt.Errorf("server %s: neither command nor url is set", ep.ID)
	}
	switch ep.Type {
	case "":
		return manifests.TransportAuto, nil
	case "http", "streamable-http", "streamableHttp":
		return manifests.TransportHTTP, nil
	case "sse":
		return manifests.TransportSSE, nil
	}
	return "", fmt.Errorf("server %s: unknown transport type %q", ep.ID, ep.Type)
}

// handshake starts the client on the connection's own context and runs
// initialize under ctx. When ctx ends first, abort tears the attempt down.
func (u *Conn) handshake(ctx context.Context, opts Options, abort func()) error {
	stop := context.AfterFunc(ctx, abort)
	u.c.OnNotification(u.onNotification)
	err := u.c.Start(u.life)
	if err == nil {
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = protocolVersion
		req.Params.ClientInfo = mcp.Implementation{Name: opts.ClientName, Version: opts.ClientVersion}
		var res *mcp.InitializeResult
		if res, err = u.c.Initialize(ctx, req); err == nil {
			u.log.Debug("initialized", "protocol", res.ProtocolVersion, "name", res.ServerInfo.Name, "version", res.ServerInfo.Version)
		}
	}
	if !stop() && err == nil {
		// abort already ran: the connection is being torn down.
		err = context.Cause(ctx)
	}
	return err
}

// connectError explains a failed handshake. Call it before Close.
func (u *Conn) connectError(ctx context.Context, opts Options, err error) error {
	// mcp-go wraps transport failures in a type that only adds a prefix;
	// anything else (a JSON-RPC error, a bad protocol version) came from a
	// server that is still running.
	var te *transport.Error
	broken := errors.As(err, &te)
	if broken {
		err = te.Err
	}
	stderr := func() string {
		if u.proc == nil {
			return ""
		}
		if broken || ctx.Err() != nil {
			// The server is dead or being killed: let stderr drain.
			return u.proc.stderrTail()
		}
		return u.proc.tail.String()
	}
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errConnectTimeout) {
			return &UnavailableError{Server: u.server, Stderr: stderr(),
				Err: fmt.Errorf("no answer to initialize within %s: %w", opts.ConnectTimeout, context.DeadlineExceeded)}
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &UnavailableError{Server: u.server, Stderr: stderr(), Err: fmt.Errorf("initialize: %w", ctx.Err())}
		}
		return fmt.Errorf("connect to %s: %w", u.server, ctx.Err())
	}
	if u.proc != nil && broken && u.proc.waitExit(exitReasonWait) {
		return &UnavailableError{Server: u.server, Stderr: stderr(), Err: u.proc.exitError("during startup")}
	}
	if errors.Is(err, transport.ErrTransportClosed) {
		err = errors.New("the server closed the connection")
	}
	return &UnavailableError{Server: u.server, Stderr: stderr(), Err: redact(fmt.Errorf("initialize: %w", err), u.secret)}
}
