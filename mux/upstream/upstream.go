// Package upstream is one connection to one upstream MCP server: a stdio
// subprocess, streamable HTTP or SSE, through mark3labs/mcp-go clients. The
// pool that serves a surface over many of them is package mux.
package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
)

// Conn is one live connection to one MCP server. It is safe for
// concurrent use.
type Conn interface {
	// ListTools returns every tool the server offers (all pages), with raw schemas.
	ListTools(ctx context.Context) ([]catalog.Tool, error)
	// CallTool calls one tool. args is a JSON object (nil means {}). Cancelling
	// ctx cancels the upstream request.
	CallTool(ctx context.Context, name string, args json.RawMessage) (*catalog.Result, error)
	// OnToolsChanged registers f to run after the server says its tool
	// list changed; bursts are coalesced and f may call ListTools.
	OnToolsChanged(f func())
	// Done is closed once the connection can no longer be used.
	Done() <-chan struct{}
	// PID is a stdio server's process id, 0 for the other transports.
	PID() int
	// Instructions are what the server said, at initialize, about how to
	// use it ("" when nothing).
	Instructions() string
	// ProtocolVersion is the MCP revision the connection speaks.
	ProtocolVersion() string
	// CacheHint is what the server said of how long its last tools/list
	// may be reused.
	CacheHint() CacheHint
	// Close ends the connection; for stdio it stops the whole process group.
	Close() error
}

// UnavailableError says a server could not be reached: it failed to start,
// to connect, to initialize, or a request timed out or the connection broke.
type UnavailableError struct {
	Server string
	Err    error
	// Stderr holds the last lines a stdio server wrote to stderr, when it
	// failed to start or initialize or exited; empty otherwise.
	Stderr string
	// Withheld names the host's variables that look like credentials and
	// that a stdio server which failed to start did not get (its entry
	// neither declares nor passes them): what it may have needed.
	Withheld []string
}

func (e *UnavailableError) ExitCode() int { return exit.Upstream }

func (e *UnavailableError) Error() string {
	var ir *InvalidReplyError
	if errors.As(e.Err, &ir) {
		// It names the server and says what it sent.
		return ir.Error()
	}
	var fp *ForeignPackageError
	if errors.As(e.Err, &fp) {
		// It names the server and why it was not started.
		return fp.Error()
	}
	return fmt.Sprintf("server %s is unavailable: %v", e.Server, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// TimeoutError says a server did not answer within the caller's time
// limit (--timeout): the one wording of that, in the CLI and in tools mode.
// The server is not said to be unavailable: it may only be slow.
type TimeoutError struct {
	Server string
	After  time.Duration // the limit; 0 when it is not known
	Err    error         // what timed out, if known
	// Starting says the server was still starting: it had not finished
	// its handshake.
	Starting bool
}

func (e *TimeoutError) ExitCode() int { return exit.Upstream }

func (e *TimeoutError) Error() string {
	after := ""
	if e.After > 0 {
		after = " after " + e.After.String()
	}
	if e.Starting {
		return fmt.Sprintf("timed out%s: server %s was still starting", after, e.Server)
	}
	return fmt.Sprintf("timed out%s: server %s did not answer in time", after, e.Server)
}

// StartingError is the cause of a request that ran out of the caller's
// time while its server was still starting: its process was started, or
// its connection opened, and it had not finished its handshake (Step, when
// known: initialize or server/discover).
type StartingError struct {
	Step    string `json:",omitempty"`
	Timeout bool   // the caller's deadline ended it
}

func (e *StartingError) Error() string {
	if e.Step == "" {
		return "timed out while the server was starting"
	}
	return e.Step + ": timed out while the server was starting"
}

// Is makes it a context.DeadlineExceeded, on either side of a socket.
func (e *StartingError) Is(target error) bool {
	return e.Timeout && target == context.DeadlineExceeded
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// Timed is err as a *TimeoutError when it is a server's request that ran
// out of the caller's time limit, after, and err unchanged otherwise. Only
// the caller knows that its limit is what ended the request: call it when
// its own context's deadline has passed.
func Timed(err error, after time.Duration) error {
	var ue *UnavailableError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ue) {
		return err
	}
	te := &TimeoutError{Server: ue.Server, After: after, Err: err}
	var starting *StartingError
	te.Starting = errors.As(err, &starting)
	return te
}

// Summary names the cause in a few words, for a column of one line per
// server.
func (e *UnavailableError) Summary() string {
	var dns *net.DNSError
	switch err := e.Err; {
	case err == nil:
		return "unavailable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + strings.TrimSuffix(clip.Error(err), ": timed out")
	case errors.Is(err, ErrClosed):
		return "unavailable: the connection was closed"
	case errors.Is(err, ErrMessageTooLarge):
		return "unavailable: a message from it exceeds the size limit"
	case errors.Is(err, ErrMessageTooDeep):
		return "unavailable: a message from it is nested too deeply to be read"
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return "unavailable: its command was not found"
	case errors.Is(err, os.ErrPermission):
		return "unavailable: its command cannot be run (permission denied)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "unavailable: connection refused (nothing listens at its url)"
	case errors.As(err, &dns):
		return "unavailable: its host name does not resolve"
	}
	return "unavailable: " + clip.Error(e.Err)
}
