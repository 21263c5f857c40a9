package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
	"github.com/mcpsh/mcp/search"
)

// Client talks to a running multiplexer over its unix socket. Each request
// has a connection of its own, so requests run concurrently and closing a
// connection cancels its request upstream. A request is one exchange:
// there is no greeting.
type Client struct {
	socket string
	// env, outside a session, is the identity of the environment this
	// client's servers would see (Target.Env), which names the socket; a
	// multiplexer of another answers Stale and is left alone.
	env string
	// session is the id of the session the client belongs to; the
	// multiplexer refuses requests of another.
	session string
	// host is the user the multiplexer must run as: this user, or in a
	// session the user who started it. Each connection checks it before
	// anything is sent (wrongListener).
	host       int
	connecting func(server string) (done func())
	warn       func(string)

	// mu guards what concurrent requests (mcp run's) share.
	mu sync.Mutex
	// pending is the connection Ensure made, which the first request uses.
	pending net.Conn
	warned  bool
}

var _ Backend = (*Client)(nil)

// ErrNotRunning says no multiplexer listens on the socket.
var ErrNotRunning = errors.New("no multiplexer is running")

// Dial connects to this user's multiplexer on socket.
func Dial(ctx context.Context, socket string) (*Client, error) {
	return dialAs(ctx, socket, os.Getuid(), "")
}

// dialAs connects to the multiplexer on socket that runs as host, serving
// session (or none).
func dialAs(ctx context.Context, socket string, host int, session string) (*Client, error) {
	c := &Client{socket: socket, host: host, session: session}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.pending = conn
	return c, nil
}

// hostClient is a client of this user's multiplexer on socket, which
// connects when it sends.
func hostClient(socket string) *Client { return &Client{socket: socket, host: os.Getuid()} }

// dial makes a connection to the multiplexer, checking who listens on the
// socket before anything is sent: a listener that is not the client's
// host gets nothing but the connection, closed at once.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	conn, err := dialSocket(ctx, c.socket)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrNotRunning, err)
	}
	if wrong := wrongListener(conn, c.socket, c.host); wrong != nil {
		conn.Close()
		wrong.Session = c.session
		return nil, wrong
	}
	return conn, nil
}

// Catalog implements Backend.
func (c *Client) Catalog(ctx context.Context, how Listing) (*Catalog, error) {
	var r response
	if err := c.do(ctx, &request{Op: "catalog", Listing: how}, &r); err != nil {
		return nil, err
	}
	if r.Catalog == nil || r.Catalog.Surface == nil {
		return nil, &transportError{err: errors.New("no catalog in the answer")}
	}
	out := &Catalog{Surface: r.Catalog.Surface.surface()}
	for _, s := range r.Catalog.Servers {
		out.Servers = append(out.Servers, ServerTools{ID: s.ID, Tools: s.Tools, Count: s.Count, Err: decodeError(s.Error), Protocol: s.Protocol})
	}
	return out, nil
}

// Tools implements Backend.
func (c *Client) Tools(ctx context.Context, server string) ([]catalog.Tool, error) {
	var r response
	if err := c.do(ctx, &request{Op: "tools", Server: server}, &r); err != nil {
		return nil, c.upstreamErr(server, err)
	}
	return r.Tools, nil
}

// Bind connects the multiplexer to a server (never answering from the
// cache) and returns its authorized tools.
func (c *Client) Bind(ctx context.Context, server string) ([]catalog.Tool, error) {
	var r response
	if err := c.do(ctx, &request{Op: "bind", Server: server}, &r); err != nil {
		return nil, c.upstreamErr(server, err)
	}
	return r.Tools, nil
}

// Tool implements Backend.
func (c *Client) Tool(ctx context.Context, server, tool string) (catalog.Tool, error) {
	var r response
	if err := c.do(ctx, &request{Op: "tool", Server: server, Tool: tool}, &r); err != nil {
		return catalog.Tool{}, c.upstreamErr(server, err)
	}
	if r.Tool == nil {
		return catalog.Tool{}, &catalog.NotAvailableError{Server: server, Tool: tool}
	}
	return *r.Tool, nil
}

// Call implements Backend.
func (c *Client) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	var r response
	if err := c.do(ctx, &request{Op: "call", Server: server, Tool: tool, Args: args}, &r); err != nil {
		return nil, c.upstreamErr(server, err)
	}
	return c.result(r.Result)
}

// Invoke implements Backend.
func (c *Client) Invoke(ctx context.Context, server, tool string, args Args) (*Invoked, error) {
	var r response
	if err := c.do(ctx, &request{Op: "invoke", Server: server, Tool: tool, Input: (*wireArgs)(&args)}, &r); err != nil {
		return nil, c.upstreamErr(server, err)
	}
	if r.Tool == nil {
		return nil, &transportError{err: errors.New("no tool in the answer")}
	}
	res, err := c.result(r.Result)
	if err != nil {
		return nil, err
	}
	return &Invoked{Server: r.Tool.Server, Tool: r.Tool.Name, Result: res}, nil
}

func (c *Client) result(raw json.RawMessage) (*catalog.Result, error) {
	res, err := catalog.ParseResult(raw)
	if err != nil {
		return nil, &transportError{err: err}
	}
	return res, nil
}

// Search implements Backend.
func (c *Client) Search(ctx context.Context, req search.Request) (*search.Answer, error) {
	var r response
	if err := c.do(ctx, &request{Op: "search", Search: &wireSearch{Text: req.Text, Limit: req.Limit, Server: req.Server}}, &r); err != nil {
		return nil, err
	}
	ans := &search.Answer{Tools: r.Tools}
	for _, s := range r.Skipped {
		ans.Skipped = append(ans.Skipped, search.Skip{Server: s.ID, Err: decodeError(s.Error)})
	}
	return ans, nil
}

// Status asks the multiplexer about itself and its connections.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var r response
	if err := c.do(ctx, &request{Op: "status"}, &r); err != nil {
		return nil, err
	}
	return r.Status, nil
}

// StatusOf asks the multiplexer on socket about itself (a multiplexer
// whose configuration is broken still answers).
func StatusOf(ctx context.Context, socket string) (*Status, error) {
	return hostClient(socket).Status(ctx)
}

// Stop asks the multiplexer to close every upstream connection and exit.
func (c *Client) Stop(ctx context.Context) error {
	return c.do(ctx, &request{Op: "stop"}, &response{})
}

// Close implements Backend; the multiplexer keeps running.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending != nil {
		c.pending.Close()
		c.pending = nil
	}
	return nil
}

// upstreamErr turns a failure to reach the multiplexer into the error a
// caller expects of a server: unavailable, naming the server.
func (c *Client) upstreamErr(server string, err error) error {
	var te *transportError
	var ue *upstream.UnavailableError
	switch {
	case errors.As(err, &ue):
		return err
	case errors.As(err, &te), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &upstream.UnavailableError{Server: server, Err: err}
	}
	return err
}

// transportError is a failure of the socket itself, not of the request.
type transportError struct{ err error }

func (e *transportError) Error() string { return "multiplexer: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }
