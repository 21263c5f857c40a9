package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/mcpsh/mcp/mux/upstream"
)

// do sends one request and decodes the final response into r. A wire
// error in the response comes back as the typed error it stands for. A
// multiplexer of another environment (Stale) is never stopped: it may be
// serving another terminal's call.
func (c *Client) do(ctx context.Context, req *request, r *response) error {
	req.V, req.Env, req.Session = wireVersion, c.env, c.session
	if opFields[req.Op].allowed&fProgress != 0 {
		// Only a tool call has logs and progress to tell of.
		req.Logs = upstream.HooksOf(ctx).OnLog != nil
		req.Progress = upstream.HooksOf(ctx).OnProgress != nil
	}
	if err := c.exchange(ctx, req, r); err != nil {
		return err
	}
	switch {
	case r.Version != 0 && r.Version != wireVersion:
		return fmt.Errorf("the multiplexer on %s speaks another protocol", c.socket)
	case r.Stale:
		return fmt.Errorf("the multiplexer on %s runs in another environment", c.socket)
	}
	c.warnOnce(r.Warnings)
	return decodeError(r.Error)
}

// warnOnce passes the configuration's warnings on, the first time.
func (c *Client) warnOnce(warnings []string) {
	if len(warnings) == 0 || c.warn == nil {
		return
	}
	c.mu.Lock()
	first := !c.warned
	c.warned = true
	c.mu.Unlock()
	if first {
		for _, w := range warnings {
			c.warn(w)
		}
	}
}

// exchange writes req on a connection of its own (the one Ensure made, the
// first time) and reads until the final response.
func (c *Client) exchange(ctx context.Context, req *request, r *response) error {
	line, err := json.Marshal(req)
	if err != nil {
		return &transportError{err: err}
	}
	if len(line) > MaxRequest {
		return &RequestTooLargeError{Size: len(line)}
	}
	c.mu.Lock()
	conn := c.pending
	c.pending = nil
	c.mu.Unlock()
	if conn == nil {
		if conn, err = c.dial(ctx); err != nil {
			return err
		}
	}
	defer conn.Close()
	// Closing the connection is how a request is cancelled.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := conn.Write(append(line, '\n')); err != nil {
		// A multiplexer that refuses a client answers before it reads,
		// and closes: what it answered is still there to read.
		if ctx.Err() == nil && c.read(ctx, conn, r) == nil {
			return nil
		}
		return c.ctxOr(ctx, err)
	}
	return c.read(ctx, conn, r)
}

// read decodes responses until the final one, telling OnConnecting's
// function of the servers the request waits for, and the call's
// OnProgress (its hooks) of each progress report.
func (c *Client) read(ctx context.Context, conn net.Conn, r *response) error {
	dec := json.NewDecoder(conn)
	waiting := map[string]func(){}
	starting := map[string]bool{} // the servers the request waits for
	defer func() {
		for _, done := range waiting {
			done()
		}
	}()
	for {
		*r = response{}
		if err := dec.Decode(r); err != nil {
			for server := range starting {
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					// The time ran out while a server was starting.
					return &upstream.UnavailableError{Server: server, Err: &upstream.StartingError{Timeout: true}}
				}
			}
			return c.ctxOr(ctx, err)
		}
		switch {
		case r.Connecting != "":
			starting[r.Connecting] = true
			if c.connecting != nil && waiting[r.Connecting] == nil {
				waiting[r.Connecting] = c.connecting(r.Connecting)
			}
		case r.Progress != nil:
			if on := upstream.HooksOf(ctx).OnProgress; on != nil {
				on(*r.Progress)
			}
		case r.Connected != "":
			delete(starting, r.Connected)
			if done := waiting[r.Connected]; done != nil {
				done()
				delete(waiting, r.Connected)
			}
		case r.Log != nil:
			if f := upstream.HooksOf(ctx).OnLog; f != nil {
				f(*r.Log)
			}
		default:
			return nil
		}
	}
}

func (c *Client) ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &transportError{err: err}
}
