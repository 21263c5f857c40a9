package main

import (
	"context"
	"errors"
	"os"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
)

// maxSummary bounds errorSummary's line, in characters.
const maxSummary = 120

// errorSummary says in one short line why a server cannot be used, for a
// column of one line per server (`mcp list`). It starts with the kind of
// failure ("needs a login", "unavailable", "timed out", "not configured",
// ...) and says what to do where that is one command. It is built from
// typed errors and from messages mux has already redacted, and it is cut
// to maxSummary characters, so it holds no secret and no wrapped chain.
func errorSummary(err error) string {
	var login *auth.LoginRequiredError
	// The innermost error with a Summary says most: a cause says more
	// than what wraps it.
	s, ok := exit.Innermost[interface{ Summary() string }](err)
	switch {
	case err == nil:
		return ""
	case ok:
		line := s.Summary()
		if _, inSession := os.LookupEnv(session.EnvVar); inSession && errors.As(err, &login) {
			line += " outside the session"
		}
		return clip.Runes(line, maxSummary)
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return clip.Runes(oneLine(err), maxSummary)
}
