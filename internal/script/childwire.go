package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/mcpsh/mcp/catalog"
)

// What crosses the pipes between `mcp run` and the process that runs its
// program (RunIsolated, ChildMain): one JSON object a line each way. The
// parent sends a start message, then replies and at most one cancel; the
// child sends requests of its Host, cancels of them, console output and,
// last, what the run came to. Errors stay in the parent: the child is told
// an error's message and a reference to it, and names that reference when
// the error ends the run.

// maxMessage is the most one message from the child may hold, besides
// the program's value (at most Limits.MaxOutput): the arguments of a
// call, a query.
const maxMessage = 64 << 20

// The errors of a message that cannot be read.
var (
	errTooLarge   = errors.New("it sent a message larger than " + strconv.Itoa(maxMessage>>20) + " MiB")
	errUnreadable = errors.New("it sent a message that is not one of its messages")
)

// readMessage reads one message of at most max bytes, a line, into v;
// fields v does not have and anything after the object are refused.
func readMessage(r *bufio.Reader, max int, v any) error {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return errTooLarge
		}
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF && len(line) > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if dec.Decode(v) != nil {
		return errUnreadable
	}
	if _, err := dec.Token(); err != io.EOF {
		return errUnreadable
	}
	return nil
}

// toChild is one message from the parent.
type toChild struct {
	Start  *childStart `json:"start,omitempty"`
	Reply  *childReply `json:"reply,omitempty"`
	Cancel bool        `json:"cancel,omitempty"`
}

// childStart is the run: the program, its limits and its surface.
type childStart struct {
	Name   string              `json:"name"`
	Src    string              `json:"src"`
	Limits childLimits         `json:"limits"`
	Tools  map[string][]string `json:"tools"`
	Down   map[string]wireErr  `json:"down,omitempty"` // Host.Unavailable of the servers it is not nil for
}

type childLimits struct {
	Timeout       time.Duration `json:"timeout"`
	MaxCalls      int           `json:"maxCalls"`
	MaxOutput     int           `json:"maxOutput"`
	MaxConcurrent int           `json:"maxConcurrent"`
	MaxMemory     int           `json:"maxMemory"`
}

// childReply answers the request of the same id.
type childReply struct {
	ID           int64                      `json:"id"`
	Result       *wireResult                `json:"result,omitempty"`
	Tools        []catalog.Tool             `json:"tools,omitempty"`
	NotAvailable *catalog.NotAvailableError `json:"notAvailable,omitempty"`
	Err          *wireErr                   `json:"err,omitempty"`
}

// wireErr is an error the parent holds: its message, the name of the
// Error a call that failed with it rejects with (errorName), and the
// reference under which it keeps it (0 when it keeps none).
type wireErr struct {
	Msg  string `json:"msg"`
	Name string `json:"name,omitempty"`
	Ref  int64  `json:"ref,omitempty"`
}

// wireResult is a catalog.Result.
type wireResult struct {
	Raw        json.RawMessage   `json:"raw,omitempty"`
	IsError    bool              `json:"isError,omitempty"`
	Content    []json.RawMessage `json:"content,omitempty"`
	Structured json.RawMessage   `json:"structured,omitempty"`
}

func toWireResult(r *catalog.Result) *wireResult {
	if r == nil {
		return nil
	}
	return &wireResult{Raw: r.Raw, IsError: r.IsError, Content: r.Content, Structured: r.Structured}
}

func (w *wireResult) result() *catalog.Result {
	if w == nil {
		return nil
	}
	return &catalog.Result{Raw: w.Raw, IsError: w.IsError, Content: w.Content, Structured: w.Structured}
}

// fromChild is one message from the child.
type fromChild struct {
	Request *childRequest `json:"request,omitempty"`
	Cancel  int64         `json:"cancel,omitempty"` // the id of a request whose caller gave up
	Log     []byte        `json:"log,omitempty"`    // console output, a piece of it
	Done    *childDone    `json:"done,omitempty"`
}

// childRequest is a call of the Host: op is "call", "search", "list" or
// "notAvailable".
type childRequest struct {
	ID     int64           `json:"id"`
	Op     string          `json:"op"`
	Server string          `json:"server,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Query  string          `json:"query,omitempty"`
	Limit  int             `json:"limit,omitempty"`
}

// childDone is what Run returned.
type childDone struct {
	Value json.RawMessage `json:"value,omitempty"`
	Err   *doneErr        `json:"err,omitempty"`
}

// doneErr is Run's error: a *ProgramError (with what it wraps), a
// *LimitError, or the context's.
type doneErr struct {
	Program *ProgramError `json:"program,omitempty"`
	Cause   *causeErr     `json:"cause,omitempty"` // the program error's Err
	Limit   *LimitError   `json:"limit,omitempty"`
	Context string        `json:"context,omitempty"` // "canceled" or "deadline"
	Msg     string        `json:"msg,omitempty"`     // any other error
}

// causeErr is a ProgramError's Err: one the parent holds, or one the
// child made.
type causeErr struct {
	Ref          int64                      `json:"ref,omitempty"`
	NotAvailable *catalog.NotAvailableError `json:"notAvailable,omitempty"`
	Tool         *wireToolError             `json:"tool,omitempty"`
	Msg          string                     `json:"msg,omitempty"`
}

type wireToolError struct {
	Server string      `json:"server"`
	Tool   string      `json:"tool"`
	Msg    string      `json:"msg"`
	Result *wireResult `json:"result,omitempty"`
}

// remoteError is an error the parent holds, as the child sees it.
type remoteError struct {
	msg, name string
	ref       int64
}

func (e *remoteError) Error() string { return e.msg }

func (w wireErr) err() error { return &remoteError{msg: w.Msg, name: w.Name, ref: w.Ref} }

// encodeDone is Run's outcome as the child reports it.
func encodeDone(v json.RawMessage, err error) *childDone {
	d := &childDone{Value: v}
	if err == nil {
		return d
	}
	d.Err = &doneErr{}
	var pe *ProgramError
	var le *LimitError
	switch {
	case errors.As(err, &pe):
		cp := *pe
		cp.Err = nil
		d.Err.Program = &cp
		d.Err.Cause = encodeCause(pe.Err)
	case errors.As(err, &le):
		d.Err.Limit = le
	case errors.Is(err, context.Canceled):
		d.Err.Context = "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		d.Err.Context = "deadline"
	default:
		d.Err.Msg = err.Error()
	}
	return d
}

func encodeCause(err error) *causeErr {
	if err == nil {
		return nil
	}
	var re *remoteError
	var na *catalog.NotAvailableError
	var te *ToolError
	switch {
	case errors.As(err, &re) && re.ref != 0:
		return &causeErr{Ref: re.ref, Msg: re.msg}
	case errors.As(err, &na):
		return &causeErr{NotAvailable: na}
	case errors.As(err, &te):
		return &causeErr{Tool: &wireToolError{Server: te.Server, Tool: te.Tool, Msg: te.Msg, Result: toWireResult(te.Result)}}
	}
	return &causeErr{Msg: err.Error()}
}
