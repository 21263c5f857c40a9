package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/explain"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// alreadyReported wraps an error whose details were printed already; only
// its exit code is still to be decided.
type alreadyReported struct{ err error }

func (e *alreadyReported) Error() string { return e.err.Error() }
func (e *alreadyReported) Unwrap() error { return e.err }

// report prints err in mcp's voice and returns the exit code.
func report(w io.Writer, err error) int {
	if err == nil {
		return exit.OK
	}
	var done *alreadyReported
	var tool *toolError
	var bad *catalog.ProblemsError
	var login *auth.LoginRequiredError
	switch {
	case errors.As(err, &done):
	case errors.As(err, &tool):
		fmt.Fprintf(w, "mcp: error: %s\n", tool.Error())
	case errors.As(err, &login):
		// One line: the server, and the command to run.
		fmt.Fprintf(w, "mcp: error: %s\n", explain.LoginRequiredLine(err, login))
	case errors.As(err, &bad):
		// `mcp check` printed each problem.
	default:
		var errs manifests.Errors
		if errors.As(err, &errs) {
			for _, e := range errs {
				fmt.Fprintf(w, "mcp: error: %s\n", e.Error())
			}
		} else {
			fmt.Fprintf(w, "mcp: error: %s\n", oneLine(err))
		}
	}
	var ue *upstream.UnavailableError
	if errors.As(err, &ue) && strings.TrimSpace(ue.Stderr) != "" {
		fmt.Fprintf(w, "mcp: %s wrote to stderr before it stopped:\n", ue.Server)
		for _, line := range strings.Split(strings.TrimRight(ue.Stderr, "\n"), "\n") {
			fmt.Fprintf(w, "  | %s\n", line)
		}
	}
	if h := hint(err); h != "" {
		fmt.Fprintf(w, "mcp: hint: %s\n", h)
	}
	return exit.Code(err)
}

// hint is the advice, if any, that goes with err: its own, or what
// explain.Hint says of it.
func hint(err error) string {
	var own interface{ advice() string }
	if errors.As(err, &own) {
		return own.advice()
	}
	return explain.Hint(err)
}

// oneLine keeps an error message on one line.
func oneLine(err error) string { return clip.Error(err) }
