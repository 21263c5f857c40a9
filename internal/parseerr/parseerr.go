// Package parseerr says, in mcp's words, what is wrong with a command line
// the grammar refused, and what to write instead.
package parseerr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/internal/words"
)

// Explain is the message and the hint for pe, a refusal by parser of the
// command line args; ok is false when there is nothing better to say than
// the grammar's own message.
func Explain(parser *kong.Kong, pe *kong.ParseError, args []string) (msg, hint string, ok bool) {
	if msg, hint, ok = unknownCommand(parser, pe); ok {
		return msg, hint, ok
	}
	return flagsAsArguments(pe, args)
}

// unknownCommand is the error for a command line whose command (or
// subcommand) does not exist: it says so and lists the ones there are
// (keeping kong's "did you mean" when it has one, its nearest names when
// it has several). ok is false for any
// other parse error.
func unknownCommand(parser *kong.Kong, pe *kong.ParseError) (msg, hint string, ok bool) {
	rest, found := strings.CutPrefix(pe.Error(), "unexpected argument ")
	if !found || pe.Context == nil {
		return "", "", false
	}
	cmd, _, _ := strings.Cut(rest, ", did you mean ")
	parent := parser.Model.Node
	for _, p := range pe.Context.Path {
		if p.Command != nil {
			parent = p.Command
		}
	}
	var names []string
	for _, n := range parent.Children {
		if n.Type == kong.CommandNode && !n.Hidden {
			names = append(names, n.Name)
		}
	}
	if len(names) == 0 {
		return "", "", false
	}
	where := "mcp"
	if parent != parser.Model.Node {
		where = "mcp " + parent.Path()
	}
	msg = fmt.Sprintf("%s has no command %q", where, clip.Runes(cmd, 40))
	if _, suggestion, ok := strings.Cut(pe.Error(), ", did you mean "); ok {
		msg += ", did you mean " + closest(cmd, suggestion)
	} else if verb := verbFor[cmd]; verb != "" && parent == parser.Model.Node {
		msg += fmt.Sprintf(", did you mean %q?", verb)
	}
	return msg, "its commands are " + strings.Join(names, ", ") + " (`" + where + " --help` says what each does)", true
}

// verbFor is the verb for a word that other command-line tools use for
// it, where no verb is spelled close enough for the grammar to say.
var verbFor = map[string]string{
	"tools": "list", "show": "list", "describe": "list", "info": "list", "schema": "list",
	"find": "search", "grep": "search", "query": "search",
	"exec": "call", "invoke": "call", "tool": "call",
	"eval": "run", "js": "run", "script": "run",
}

// flagsAsArguments is the error for `mcp call SERVER.TOOL --a 2 --b 3`:
// flags that mcp call does not have, standing where the tool's arguments
// go. It says the arguments' syntax and gives the command line with them
// as key=value pairs. ok is false for any other parse error.
func flagsAsArguments(pe *kong.ParseError, args []string) (msg, hint string, ok bool) {
	if pe.Context == nil || !strings.HasPrefix(pe.Error(), "unknown flag ") {
		return "", "", false
	}
	if cmd := pe.Context.Selected(); cmd == nil || cmd.Name != "call" {
		return "", "", false
	}
	known := map[string]*kong.Flag{}
	for _, group := range pe.Context.Flags() {
		known["--"+group.Name] = group
		if group.Short != 0 {
			known["-"+string(group.Short)] = group
		}
	}
	line, pairs, first := rewriteFlags(args, known)
	if len(pairs) == 0 {
		return "", "", false
	}
	return clip.Runes(first, 41) + " is not a flag of mcp call: tool arguments are " + clip.Runes(strings.Join(pairs, " "), 200),
		clip.Runes("mcp "+strings.Join(line, " "), 400), true
}

// rewriteFlags is args with each flag that is not in known (and its value)
// as one key=value pair, quoted for a shell; pairs are those, and first
// is the first such flag as given.
func rewriteFlags(args []string, known map[string]*kong.Flag) (line, pairs []string, first string) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		flag, isKnown := known[name]
		switch {
		case arg == "--":
			return append(line, args[i:]...), pairs, first
		case !strings.HasPrefix(arg, "-") || arg == "-":
			line = append(line, shell.Word(arg))
			continue
		case isKnown:
			line = append(line, shell.Word(arg))
			if !hasValue && !flag.IsBool() && i+1 < len(args) {
				i++
				line = append(line, shell.Word(args[i]))
			}
			continue
		}
		if first == "" {
			first = name
		}
		if !hasValue {
			value = "true"
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value = args[i]
			}
		}
		pair := shell.Word(strings.TrimLeft(name, "-") + "=" + value)
		line, pairs = append(line, pair), append(pairs, pair)
	}
	return line, pairs, first
}

// closest is kong's suggestion (`"list"?` or `one of "list", "init"?`)
// kept to the names nearest to word, a swap of two letters counting as one
// edit: "lsit" means list, not init.
func closest(word, suggestion string) string {
	rest, several := strings.CutPrefix(suggestion, "one of ")
	if !several {
		return suggestion
	}
	var names []string
	best := -1
	for _, q := range strings.Split(strings.TrimSuffix(rest, "?"), ", ") {
		name, err := strconv.Unquote(q)
		if err != nil {
			return suggestion
		}
		switch d := words.Distance(word, name); {
		case best < 0 || d < best:
			best, names = d, []string{q}
		case d == best:
			names = append(names, q)
		}
	}
	if len(names) == 1 {
		return names[0] + "?"
	}
	return "one of " + strings.Join(names, ", ") + "?"
}
