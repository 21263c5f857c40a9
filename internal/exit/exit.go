// Package exit holds mcp's exit codes and finds the one an error stands for.
// Typed errors say their own code with an ExitCode method, so the command
// line asks the error instead of knowing every package's types.
package exit

import (
	"context"
	"errors"
)

// The exit codes.
const (
	OK           = 0
	ToolError    = 1 // the tool ran and reported an error
	Usage        = 2 // usage error or refused
	NotAvailable = 3 // not available in this session
	Upstream     = 4 // upstream unavailable: start, connect, timeout
	Config       = 5 // invalid configuration
)

// Meanings are the table of docs/exit-codes.md, one line a code, as help,
// the man page and a session's guide say it.
var Meanings = []string{
	"0 ok",
	"1 the tool ran and reported an error",
	"2 usage error, or refused in a session",
	"3 not available here",
	"4 the server failed or a wait ran out (start, connect, timeout, lost connection, invalid reply)",
	"5 invalid configuration, or a project not trusted",
}

// Coder is an error that knows its exit code.
type Coder interface {
	error
	ExitCode() int
}

// Code is the exit code for err. The innermost error of the chain that has
// a code decides, since a cause says more than what wraps it (a server
// that is unavailable because no OAuth client is registered is a
// configuration problem). An error without one is an upstream failure when
// it is a timeout or a cancellation, and a tool error otherwise.
func Code(err error) int {
	if err == nil {
		return OK
	}
	if c, ok := Innermost[Coder](err); ok {
		return c.ExitCode()
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return Upstream
	}
	return ToolError
}

// Innermost is the innermost error of err's chain (depth first, the first
// of several joined errors first) that is a T.
func Innermost[T any](err error) (T, bool) {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			if t, ok := Innermost[T](inner); ok {
				return t, true
			}
		}
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			if inner == nil {
				continue
			}
			if t, ok := Innermost[T](inner); ok {
				return t, true
			}
		}
	}
	t, ok := err.(T)
	return t, ok
}
