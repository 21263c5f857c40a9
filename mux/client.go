package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
)

// Client talks to a running multiplexer over its unix socket. Each request
// has a connection of its own, so requests run concurrently and closing a
// connection cancels its request upstream.
type Client struct {
	socket     string
	hello      *hello
	connecting func(server string) (done func())
}

var _ Backend = (*Client)(nil)

// ErrNoDaemon says no multiplexer listens on the socket.
var ErrNoDaemon = errors.New("no multiplexer is running")

// Dial connects to the multiplexer on socket and greets it.
func Dial(ctx context.Context, socket string) (*Client, error) {
	c := &Client{socket: socket}
	var r response
	if err := c.do(ctx, &request{Op: "hello"}, &r); err != nil {
		return nil, err
	}
	if r.Hello == nil || r.Hello.Version != wireVersion || r.Hello.Surface == nil {
		return nil, fmt.Errorf("the multiplexer on %s speaks another protocol", socket)
	}
	c.hello = r.Hello
	return c, nil
}

// OnConnecting makes the client call f when the multiplexer says a request
// waits for a server to be started or reached.
func (c *Client) OnConnecting(f func(server string) (done func())) { c.connecting = f }

// Warnings are what the multiplexer noticed while reading the configuration.
func (c *Client) Warnings() []string { return c.hello.Warnings }

// SameEnv says whether the multiplexer runs in this process's environment
// (ignore as for DaemonOptions.IgnoreEnv).
func (c *Client) SameEnv(ignore ...string) bool { return c.hello.Env.Matches(ignore...) }

// Surface implements Backend.
func (c *Client) Surface() *catalog.Surface { return c.hello.Surface }

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
	res, err := catalog.ParseResult(r.Result)
	if err != nil {
		return nil, &transportError{err: err}
	}
	return res, nil
}

// Cached implements Backend.
func (c *Client) Cached(server string) ([]catalog.Tool, bool) {
	var r response
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.do(ctx, &request{Op: "cached", Server: server}, &r); err != nil {
		return nil, false
	}
	return r.Tools, r.Found
}

// EndpointKey implements Backend.
func (c *Client) EndpointKey(server string) (string, bool) {
	var r response
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.do(ctx, &request{Op: "endpoint-key", Server: server}, &r); err != nil {
		return "", false
	}
	return r.Key, r.Found
}

// Status asks the multiplexer about itself and its connections.
func (c *Client) Status(ctx context.Context) (*DaemonStatus, error) {
	var r response
	if err := c.do(ctx, &request{Op: "status"}, &r); err != nil {
		return nil, err
	}
	return r.Status, nil
}

// StatusOf asks the multiplexer on socket about itself, without greeting
// it (a multiplexer whose configuration is broken still answers).
func StatusOf(ctx context.Context, socket string) (*DaemonStatus, error) {
	c := &Client{socket: socket}
	return c.Status(ctx)
}

// Stop asks the multiplexer to close every upstream connection and exit.
func (c *Client) Stop(ctx context.Context) error {
	return c.do(ctx, &request{Op: "stop"}, &response{})
}

// Close implements Backend; the multiplexer keeps running.
func (c *Client) Close() error { return nil }

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

// do sends one request and decodes the final response into r. A wire
// error in the response comes back as the typed error it stands for.
func (c *Client) do(ctx context.Context, req *request, r *response) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.socket)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	defer conn.Close()
	// Closing the connection is how a request is cancelled.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return c.ctxOr(ctx, err)
	}
	dec := json.NewDecoder(conn)
	waiting := map[string]func(){}
	defer func() {
		for _, done := range waiting {
			done()
		}
	}()
	for {
		*r = response{}
		if err := dec.Decode(r); err != nil {
			return c.ctxOr(ctx, err)
		}
		switch {
		case r.Connecting != "":
			if c.connecting != nil && waiting[r.Connecting] == nil {
				waiting[r.Connecting] = c.connecting(r.Connecting)
			}
		case r.Connected != "":
			if done := waiting[r.Connected]; done != nil {
				done()
				delete(waiting, r.Connected)
			}
		default:
			return decodeError(r.Error)
		}
	}
}

func (c *Client) ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &transportError{err: err}
}
