// Package script runs the JavaScript programs of `mcp run`: one small program
// whose global objects are the session's authorized servers and whose
// methods are their tools, so that an agent chains several tool calls in one
// step instead of one `mcp call` per round trip.
//
// A program is the body of an async function: top-level await and return
// work. Its value is what it returns; when its last top-level statement is an
// expression statement (function declarations and empty statements after it
// aside), that expression is returned, as in a REPL. Any other program's value
// is undefined, which encodes as JSON null.
//
// Inside a program:
//
//	await contacts.search_contacts({query: "Ada"}) // structured content, else text
//	await mcp.call("dev-radius.ping", {})          // same, for any server id
//	await mcp.callRaw("contacts.search_contacts", {query: "Ada"}) // the whole result object
//	mcp.search("send email", 5)                   // [{server, name, description, inputSchema}]
//	mcp.list("contacts")                          // same shape; mcp.list() lists every server
//	mcp.json(await n8n.search_nodes({query: "x"})) // text holding JSON as its value; other values as they are
//	console.log("note", {a: 1})                   // to stderr
//	await new Promise(r => setTimeout(r, 100))    // timers live only as long as the run
//
// The engine runs the program on one goroutine and each tool call on its own
// goroutine, so calls awaited together (Promise.all) run concurrently, up to
// Limits.MaxConcurrent at a time.
//
// What is bounded: wall time (the VM is interrupted even in a busy loop and
// in-flight calls are cancelled), the number of tool calls, concurrent calls,
// the size of the program's JSON value, the call stack depth, and the growth of
// the Go heap during the run (sampled, so a single huge allocation by a builtin
// such as String.prototype.repeat or new ArrayBuffer happens before it can be
// seen). Console output is not bounded beyond the time limit.
package script

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
)

// Host is what a program reaches: the session's authorized tools.
type Host interface {
	// Tools returns the authorized surface: server id (as declared) -> tool names.
	Tools() map[string][]string
	// Call calls an authorized tool. The engine checks authorization with
	// Tools first; Call must check it again, as the one gate. Call must
	// return soon after ctx is cancelled.
	Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error)
	// Search ranks authorized tools for a query; limit > 0.
	Search(ctx context.Context, query string, limit int) ([]catalog.Tool, error)
	// List returns the authorized tools of one server, or of all when server is "".
	List(ctx context.Context, server string) ([]catalog.Tool, error)
	// NotAvailable is the error for server.tool (or a server, with tool
	// "") outside the surface, in the surface's words.
	NotAvailable(server, tool string) *catalog.NotAvailableError
	// Unavailable is why server, one of Tools (which lists it without
	// tools), could not be reached to learn its tools; nil when it was.
	// A call of any of its tools rejects with it.
	Unavailable(server string) error
}

// Defaults for the zero fields of Limits.
const (
	defaultTimeout  = 60 * time.Second
	defaultMaxCalls = 100
	// defaultMaxOutput is as large as one reply of a server may be
	// (upstream.DefaultMaxMessageBytes): `mcp run` cuts what it prints at
	// --max-output and saves the whole, as `mcp call` does.
	defaultMaxOutput     = 64 << 20
	defaultMaxConcurrent = 16
	defaultMaxMemory     = 1 << 30
	// defaultSearchLimit is the number of results mcp.search returns when the
	// program gives no limit.
	defaultSearchLimit = 10
	// maxCallStack bounds the depth of JavaScript calls. Overflowing
	// through builtins (a callback of Array.prototype.map calling itself)
	// costs the engine time that grows steeply with this depth.
	maxCallStack = 1000
)

// Limits bound one run. A zero field takes its default; a negative field
// means no limit.
type Limits struct {
	Timeout       time.Duration // wall time of the whole run
	MaxCalls      int           // tool calls made (mcp.search and mcp.list do not count)
	MaxOutput     int           // bytes of the program's JSON value
	MaxConcurrent int           // tool calls in flight at once; the rest wait their turn
	MaxMemory     int           // bytes the Go heap may grow during the run (sampled)
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if l.Timeout == 0 {
		l.Timeout = defaultTimeout
	}
	def(&l.MaxCalls, defaultMaxCalls)
	def(&l.MaxOutput, defaultMaxOutput)
	def(&l.MaxConcurrent, defaultMaxConcurrent)
	def(&l.MaxMemory, defaultMaxMemory)
	return l
}

// ProgramError is an error in the program: a syntax error, an uncaught
// exception or an unhandled promise rejection. Line and Col (1-based; Col
// counts bytes) point into the program's own source; they are 0 when the
// error has no position (a thrown non-Error value, a value that cannot be
// encoded).
type ProgramError struct {
	File      string
	Line, Col int
	Msg       string // e.g. "TypeError: Cannot read property 'x' of undefined"
	// Err is the Go error behind an uncaught tool or host error
	// (*ToolError, *catalog.NotAvailableError, or what Host.Call
	// returned), if any.
	Err error
	// JSONText, for a TypeError, is the first call (SERVER.TOOL) that
	// resolved to text holding a JSON object or array, which the program
	// most likely took for the value: mcp.json makes it one.
	JSONText string `json:",omitempty"`
}

func (e *ProgramError) ExitCode() int { return exit.Usage }

func (e *ProgramError) Error() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

func (e *ProgramError) Unwrap() error { return e.Err }

// LimitError says the run went past one of its Limits.
type LimitError struct {
	Kind  string // "timeout", "calls", "output" or "memory"
	Limit int64  // nanoseconds for timeout, a count for calls, bytes otherwise
}

// ExitCode: a program over time is an upstream timeout; any other limit
// is the program's own doing.
func (e *LimitError) ExitCode() int {
	if e.Kind == "timeout" {
		return exit.Upstream
	}
	return exit.Usage
}

func (e *LimitError) Error() string {
	switch e.Kind {
	case "timeout":
		return "program exceeded its time limit of " + time.Duration(e.Limit).String()
	case "calls":
		return "program exceeded its limit of " + strconv.FormatInt(e.Limit, 10) + " tool calls"
	case "output":
		return "program value exceeds the output limit of " + strconv.FormatInt(e.Limit, 10) + " bytes"
	case "memory":
		return "program exceeded its memory limit of " + strconv.FormatInt(e.Limit>>20, 10) + " MiB"
	}
	return "program exceeded a limit: " + e.Kind
}

// ToolError is a tool result with isError set.
type ToolError struct {
	Server, Tool string
	Msg          string // the result's text
	Result       *catalog.Result
}

func (e *ToolError) ExitCode() int { return exit.ToolError }

func (e *ToolError) Error() string { return e.Server + "." + e.Tool + ": " + e.Msg }

// errorName is the name of the Error a failed call rejects with:
// ArgumentError when the arguments do not fit the tool's input schema
// (as `mcp call` refuses them, exit 2 when uncaught), else HostError.
func errorName(err error) string {
	var (
		re *remoteError
		ae *catalog.ArgError
		ie *catalog.InvalidArgsError
		ue *catalog.UnknownArgsError
	)
	if errors.As(err, &re) && re.name != "" {
		return re.name
	}
	if errors.As(err, &ae) || errors.As(err, &ie) || errors.As(err, &ue) {
		return "ArgumentError"
	}
	return "HostError"
}

// Run runs one program, named name in messages, and returns its value as
// JSON. Console output goes to stderr. The error is a *ProgramError, a
// *LimitError, or ctx's error when ctx is cancelled.
func Run(ctx context.Context, h Host, name, src string, lim Limits, stderr io.Writer) (json.RawMessage, error) {
	lim = lim.withDefaults()
	prg, err := compile(name, src)
	if err != nil {
		return nil, err
	}
	if stderr == nil {
		stderr = io.Discard
	}
	e := newEngine(ctx, h, name, lim, stderr)
	type result struct {
		v   json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := e.run(prg)
		e.close()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-e.ctx.Done():
	}
	// The VM stops at its next instruction. A builtin running long in Go
	// (a backtracking regular expression) cannot be interrupted, nor can
	// a Host that ignores cancellation: after a grace period Run returns
	// anyway and leaves that goroutine to end on its own.
	grace := time.NewTimer(abandonGrace)
	defer grace.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-grace.C:
		return nil, e.failure()
	}
}

// abandonGrace is how long Run waits for a stuck run once it is over time.
const abandonGrace = time.Second
