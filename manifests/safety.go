package manifests

import (
	"fmt"

	"github.com/mcpsh/mcp/internal/exit"
)

// A file another user owns or can change is not configuration and is not
// trusted, whatever its name: every file this package reads goes through
// internal/safefile, which says the rule (ssh's StrictModes, with sticky
// directories allowed, up to / as written and where symlinks lead) and
// decides before it opens anything.
//
// Recipe discovery passes over a package.json that fails the rule, with a
// warning; the editor configurations that fail it are ignored, with a
// warning; the recipe's own files (package.json, its manifests, local
// bindings and agent files) that fail it are errors of the recipe, or of
// the agent; and project trust refuses every file that fails it, and a
// directory whose package.json fails it. On Windows the owner and mode
// part is read from each file's owner and access list (internal/winacl).

// UnsafeFile is a file that is not the user's to trust, and why.
type UnsafeFile struct {
	// Path is relative to the project directory, with slashes; absolute
	// for a file outside it.
	Path string `json:"path"`
	// Problem says why, as a predicate of the file: "is owned by ...".
	Problem string `json:"problem"`
}

func (u UnsafeFile) String() string { return u.Path + " " + u.Problem }

// UnsafeError says a directory cannot be trusted: one of its files is not
// the user's to trust.
type UnsafeError struct {
	Dir  string
	File UnsafeFile
}

func (e *UnsafeError) ExitCode() int { return exit.Config }

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("cannot trust %s: %s", printable(e.Dir), printable(e.File.String()))
}
