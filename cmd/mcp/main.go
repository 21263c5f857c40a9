// Command mcp lets an agent with a shell, or a person at a terminal, use the
// tools of MCP servers that a recipe has authorized.
//
// Rules for what mcp prints, kept in one place:
//   - stdout carries results only, so they can be piped; --json makes them
//     stable machine output.
//   - everything else goes to stderr in one voice: "mcp: error: ...",
//     "mcp: hint: ...", "mcp: warning: ...", lowercase, no trailing period.
//   - secrets (env and header values) are never printed.
//   - only main calls os.Exit; every failure is an error value whose exit
//     code comes from the error (internal/exit).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/internal/termsafe"
	"github.com/mcpsh/mcp/mux"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs mcp with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// mcp run's program, in a process of its own: it serves only the run
	// that started it, on descriptors that run set up.
	if len(args) == 1 && args[0] == script.ChildArg {
		warn := termsafe.NewWriter(stderr)
		privdir.OnWarning(func(line string) { fmt.Fprintf(warn, "mcp: warning: %s\n", line) })
		return script.ChildMain(stderr)
	}
	a := newApp(stdin, stdout, stderr)
	// A runtime directory replaced under mcp is said once, by whichever
	// command finds it first.
	privdir.OnWarning(func(line string) { a.warn("%s", line) })
	// The multiplexer is no command of a session's: only session start
	// starts a session's, with a secret the session's state holds the
	// digest of, which the multiplexer checks.
	if len(args) == 1 && args[0] == mux.Arg && (!a.inSession() || mux.LaunchedForSession()) {
		return mux.Main(stderr, upstreamOptions())
	}
	if a.inSession() {
		if err := refuse(args); err != nil {
			return report(a.stderr, err)
		}
	}
	return report(a.stderr, a.run(args))
}
