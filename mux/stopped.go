package mux

import (
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// StoppedError says the multiplexer stopped before it answered a request:
// what stopped it, and how far the request had come.
type StoppedError struct {
	// Why is what stopped it: the command ("mcp daemon stop"), or what
	// happened ("the session ended").
	Why string `json:"why"`
	// Read says the multiplexer had read the request; Call names the
	// tool of a call it was serving (SERVER.TOOL).
	Read bool   `json:"read,omitempty"`
	Call string `json:"call,omitempty"`
}

// ExitCode is that of a server lost in the middle of a request: a session
// whose multiplexer is gone has ended.
func (e *StoppedError) ExitCode() int { return exit.Upstream }

func (e *StoppedError) Error() string {
	stopped := "the multiplexer was stopped (" + e.Why + ")"
	switch {
	case !e.Read:
		return stopped + " before it read the request: nothing was sent to a server"
	case e.Call != "":
		return fmt.Sprintf("%s before the call of %s finished: the server may have run it", stopped, e.Call)
	}
	return stopped + " before it answered"
}

// Why a multiplexer stops, as StoppedError says it.
const (
	stopByCommand = "mcp daemon stop"
	stopBySession = "mcp session stop"
	stopBySignal  = "a signal"
	stopEnded     = "the session ended"
	stopIdle      = "it was idle"
	stopRetired   = "its servers' environment changed"
	stopListener  = "its socket failed"
)

// clientConn is a client's connection as the multiplexer answers it: one
// write at a time, and none after the last, so that a multiplexer that
// stops tells a request in flight why in a whole line and then says
// nothing more.
type clientConn struct {
	net.Conn
	mu   sync.Mutex
	enc  *json.Encoder
	done bool // the last line is written
	// req is the request, once read.
	req *request
}

func newClientConn(conn net.Conn) *clientConn {
	return &clientConn{Conn: conn, enc: json.NewEncoder(conn)}
}

// write writes r, unless the last line was written; last says r is it.
// It says false when nothing was written.
func (c *clientConn) write(r *response, last bool, deadline time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return false
	}
	c.done = last
	if !deadline.IsZero() {
		_ = c.SetWriteDeadline(deadline)
	}
	return c.enc.Encode(r) == nil
}

// read records the request read on the connection.
func (c *clientConn) read(req *request) {
	c.mu.Lock()
	c.req = req
	c.mu.Unlock()
}

// stop tells the client that the multiplexer stopped (why), unless its
// answer is written or being written, and closes the connection. It
// waits for no write: one that holds the connection ends when it closes.
func (c *clientConn) stop(why string, deadline time.Time) {
	defer c.Close()
	if !c.mu.TryLock() {
		return
	}
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.done = true
	e := &StoppedError{Why: why}
	if c.req != nil {
		e.Read = true
		if c.req.Op == "call" || c.req.Op == "invoke" {
			e.Call = c.req.Server + "." + c.req.Tool
		}
	}
	_ = c.SetWriteDeadline(deadline)
	_ = c.enc.Encode(&response{Error: encodeError(e)})
}
