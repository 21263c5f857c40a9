package upstream

import (
	"fmt"

	"github.com/mcpsh/mcp/internal/exit"
)

// ForeignPackageError says a server was not started: the package its
// runner (npx, pnpm, yarn, bunx) would run, installed where npm looks, is
// another user's or may be changed by others, and running it, directly or
// through the runner, would run their code as this user. It is the cause
// of an *UnavailableError.
type ForeignPackageError struct {
	Server string
	Runner string
	// Path is the first path on the way to the package that is not the
	// user's or root's, or that others may write.
	Path string
	// Owner names the other user Path belongs to ("ada (uid 1001)"); ""
	// when Path is the user's or root's and Why says what is wrong.
	Owner string `json:",omitempty"`
	Why   string `json:",omitempty"`
}

func (e *ForeignPackageError) ExitCode() int { return exit.Upstream }

func (e *ForeignPackageError) Error() string {
	if e.Owner != "" {
		return fmt.Sprintf("server %s not started: %s: %s would run another user's package; remove it or install it yourself",
			e.Server, e.detail(), printable(e.Runner, 40))
	}
	return fmt.Sprintf("server %s not started: %s: %s would run a package others may change",
		e.Server, e.detail(), printable(e.Runner, 40))
}

// Summary says what is not the user's, for a column of one line per server.
func (e *ForeignPackageError) Summary() string { return "not started: " + e.detail() }

// detail names the path and what is wrong with it.
func (e *ForeignPackageError) detail() string {
	if e.Owner != "" {
		return printable(e.Path, 400) + " belongs to " + printable(e.Owner, 80)
	}
	return printable(e.Path, 400) + " " + printable(e.Why, 400)
}
