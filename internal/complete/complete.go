// Package complete answers Tab: a shell runs mcp again with COMP_LINE set
// to the words typed so far (the scripts of cmd/mcp/completion), and mcp
// prints the candidates, one a line, before anything is parsed.
//
// Verbs, flags and their values come from the kong grammar of this
// invocation (kong-completion), so a session offers only its own. The
// tools of call and list and a tool's arguments come from a Source: on the
// host the catalog cache, read for the recipe and agent as mcp list finds
// them; in a session its multiplexer, asked for what it has seen. Either
// way no server is started and nothing is connected: a server not listed
// yet offers no tools.
package complete

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	kongcompletion "github.com/jotaen/kong-completion"
	"github.com/posener/complete"

	"github.com/mcpsh/mcp/mux"
)

// Wait bounds how long Tab waits for the tools: less than a person
// waits for a shell. Past it, only the grammar's candidates are offered.
const Wait = time.Second

// Source gives the surface's servers, each with the authorized tools it
// was last seen with, for the --recipe and --agent the line names ("" for
// none). It starts and connects nothing.
type Source func(ctx context.Context, recipe, agent string) (*mux.Catalog, error)

// Register answers a completion request and exits (kong's Exit), or does
// nothing when the shell is not asking. Inside a session (inSession, with
// MCP_SESSION's value) the tools are the session multiplexer's; outside
// one they are the catalog cache's.
func Register(parser *kong.Kong, inSession bool, session string) {
	src := Host
	if inSession {
		src = Session(session)
	}
	register(parser, src)
}

func register(parser *kong.Kong, src Source) {
	cmd, err := kongcompletion.Command(parser)
	if err != nil {
		parser.Errorf("error running command completion: %v", err)
		parser.Exit(1)
		return
	}
	if text, ok := compLine(); ok {
		p := &predictor{line: parseLine(text, takesValue(parser.Model.Node)), src: src}
		for _, verb := range []string{"call", "list"} {
			if c, ok := cmd.Sub[verb]; ok {
				c.Args = p
				cmd.Sub[verb] = c
			}
		}
	}
	cmp := complete.New(parser.Model.Name, cmd)
	cmp.Out = parser.Stdout
	if cmp.Complete() {
		parser.Exit(0)
	}
}

// compLine is the line up to the cursor, as complete reads it.
func compLine() (string, bool) {
	text := os.Getenv("COMP_LINE")
	if text == "" {
		return "", false
	}
	if point, err := strconv.Atoi(os.Getenv("COMP_POINT")); err == nil && point >= 0 && point < len(text) {
		text = text[:point]
	}
	return text, true
}

// takesValue says which flags of the grammar take a value.
func takesValue(root *kong.Node) func(string) bool {
	names := map[string]bool{}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if !f.Value.IsBool() && !f.Value.IsCounter() {
				names["--"+f.Name] = true
				if f.Short != 0 {
					names["-"+string(f.Short)] = true
				}
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return func(flag string) bool { return names[flag] }
}

// predictor offers call's and list's positional words.
type predictor struct {
	line line
	src  Source
}

func (p *predictor) Predict(complete.Args) []string {
	l := p.line
	if strings.HasPrefix(l.word, "-") || (l.verb != "call" && len(l.args) > 0) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	cat, err := p.src(ctx, l.flags["--recipe"], l.flags["--agent"])
	if err != nil {
		return nil
	}
	return candidates(l, cat)
}
