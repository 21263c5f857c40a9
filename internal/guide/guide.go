// Package guide is a session's guide: what `mcp --help` prints inside a
// session, its agent's guide to the surface. It names the surface's
// servers, the four verbs with examples from it, the arguments' syntax and
// the exit codes, in a couple of kilobytes, so that a host can tell its
// agent to run it, or paste it into a prompt.
package guide

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/mux"
)

// maxGuideServers is how many servers the guide names one by one.
const maxGuideServers = 8

// Write writes the guide of a session whose surface is cat (nil when it
// could not be listed); summary says in one short line why a server cannot
// be used.
func Write(w io.Writer, cat *mux.Catalog, summary func(error) string) {
	ex := pickExample(cat)
	fmt.Fprintf(w, "This is an MCP session: a fixed set of tools, used from the shell with four\nverbs. `mcp --help` prints this guide, `mcp VERB --help` a verb's.\n\n")
	if cat != nil {
		fmt.Fprintf(w, "Servers (`mcp list SERVER` shows a server's tools with their signatures):\n")
		writeServerLines(w, cat.Servers, summary)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, `Verbs:
  mcp search WORDS...                 rank the tools for a few words
      mcp search %s
  mcp list [SERVER[.TOOL]] [--schema] servers, a server's tools, a tool's signature
      mcp list %s
      mcp list %s --schema
  mcp call SERVER.TOOL [ARGS...]      call a tool
      mcp call %s
  mcp run [FILE|-] [-e CODE]          a JavaScript program whose functions are the tools
      mcp run -e %s

Arguments of call:
%s

Names in run:
%s

Every verb takes --json (the whole result, as JSON), --timeout 60s (the
longest a server may stay silent), --max-output 50KB (longer text is cut, and
saved whole to a file whose path is printed) and -h.

Exit codes:
  %s
`, ex.words, ex.server, ex.tool, ex.call, shell.Word(ex.run), Arguments, RunNames, strings.Join(exit.Meanings, "\n  "))
}

// writeServerLines writes a line for each server: its tools, or why it has
// none.
func writeServerLines(w io.Writer, servers []mux.ServerTools, summary func(error) string) {
	width := 0
	for _, s := range servers {
		width = max(width, min(len(s.ID), 24))
	}
	for i, s := range servers {
		if i == maxGuideServers {
			fmt.Fprintf(w, "  … and %d more: `mcp list` shows them all\n", len(servers)-i)
			return
		}
		var line string
		switch {
		case s.Err != nil:
			line = "unavailable: " + summary(s.Err)
		case len(s.Tools) == 0:
			line = "no tools"
		default:
			names := make([]string, len(s.Tools))
			for j, t := range s.Tools {
				names[j] = t.Name
			}
			line = fmt.Sprintf("%d %s: %s", len(s.Tools), words.Plural(len(s.Tools), "tool", "tools"), strings.Join(names, ", "))
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, s.ID, clip.Runes(line, max(78-max(width, len(s.ID)), 24)))
	}
}

// example is what the guide's examples name.
type example struct{ words, server, tool, call, run string }

// pickExample takes the examples from the surface: the first tool whose
// required arguments are all strings, numbers or booleans (at least one),
// else the first tool.
func pickExample(cat *mux.Catalog) example {
	var first, best *catalog.Tool
	if cat != nil {
		for _, s := range cat.Servers {
			for i := range s.Tools {
				t := &s.Tools[i]
				if first == nil {
					first = t
				}
				if best == nil && simpleRequired(t) > 0 {
					best = t
				}
			}
		}
	}
	if best == nil {
		best = first
	}
	if best == nil {
		return example{words: "contact lookup", server: "SERVER", tool: "SERVER.TOOL",
			call: "SERVER.TOOL key=value", run: `return await mcp.call("SERVER.TOOL", {key: "value"})`}
	}
	var pairs, props []string
	for _, p := range catalog.Params(best.InputSchema) {
		if !p.Required {
			continue
		}
		v, js := sampleValue(p)
		pairs = append(pairs, shell.Word(p.Name+"="+v))
		props = append(props, jsKey(p.Name)+": "+js)
	}
	return example{
		words:  strings.Join(strings.FieldsFunc(best.Name, func(r rune) bool { return r == '_' || r == '-' || r == '.' }), " "),
		server: best.Server,
		tool:   best.ID(),
		call:   strings.TrimSpace(best.ID() + " " + strings.Join(pairs, " ")),
		run:    "return await " + jsName(best) + "({" + strings.Join(props, ", ") + "})",
	}
}

// simpleRequired is the number of a tool's required arguments, or -1 when
// one of them is not a string, number or boolean.
func simpleRequired(t *catalog.Tool) int {
	n := 0
	for _, p := range catalog.Params(t.InputSchema) {
		if !p.Required {
			continue
		}
		if _, js := sampleValue(p); js == "" {
			return -1
		}
		n++
	}
	return n
}

// sampleValue is a value of p's type for an example, on the command line
// and in JavaScript ("" when p is not a string, number or boolean).
func sampleValue(p catalog.Param) (arg, js string) {
	if len(p.Types) == 0 {
		return "text", `"text"`
	}
	switch p.Types[0] {
	case "string":
		return "text", `"text"`
	case "number", "integer":
		return "1", "1"
	case "boolean":
		return "true", "true"
	}
	return "", ""
}

var jsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// jsName is how a program calls t: server.tool, or server["tool-name"].
func jsName(t *catalog.Tool) string {
	server := strings.ReplaceAll(t.Server, "-", "_")
	if jsIdent.MatchString(t.Name) {
		return server + "." + t.Name
	}
	return fmt.Sprintf("%s[%q]", server, t.Name)
}

// jsKey is a property name in an object literal.
func jsKey(k string) string {
	if jsIdent.MatchString(k) {
		return k
	}
	return fmt.Sprintf("%q", k)
}
