package main

import (
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/shell"
)

// flagsAsArguments is the error for `mcp call SERVER.TOOL --a 2 --b 3`:
// flags that mcp call does not have, standing where the tool's arguments
// go. It says the arguments' syntax and gives the command line with them
// as key=value pairs. It is nil for any other parse error.
func flagsAsArguments(pe *kong.ParseError, args []string) *usageError {
	if pe.Context == nil || !strings.HasPrefix(pe.Error(), "unknown flag ") {
		return nil
	}
	if cmd := pe.Context.Selected(); cmd == nil || cmd.Name != "call" {
		return nil
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
		return nil
	}
	return &usageError{
		msg:  clip.Runes(first, 41) + " is not a flag of mcp call: tool arguments are " + clip.Runes(strings.Join(pairs, " "), 200),
		hint: clip.Runes("mcp "+strings.Join(line, " "), 400),
	}
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
