package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/idle"
	"github.com/mcpsh/mcp/mux"
)

type callCmd struct {
	Target string   `arg:"" help:"The tool, as SERVER.TOOL." placeholder:"SERVER.TOOL"`
	Pairs  []string `arg:"" optional:"" help:"Arguments: key=value (coerced by the tool's schema) or key:=JSON (raw)." placeholder:"KEY=VALUE"`
	Args   string   `help:"Arguments as a JSON object, @FILE to read one from a file, or - for stdin; key=value pairs override it." placeholder:"JSON|@FILE|-"`

	AllowUnknown bool `name:"allow-unknown" help:"Send arguments the tool's input schema does not declare (otherwise refused when the schema lists its arguments)."`
	Verbose      bool `short:"v" help:"Show the log messages the server sends during the call on stderr, one line each."`
}

// toolError says the tool ran and reported an error: exit 1. Its output has
// been printed already.
type toolError struct{ target string }

func (e *toolError) Error() string { return e.target + " reported an error" }
func (e *toolError) ExitCode() int { return exit.ToolError }

func (c *callCmd) Run(a *app) error {
	server, tool := splitTarget(c.Target)
	if server == "" || tool == "" {
		return &usageError{msg: fmt.Sprintf("%q is not SERVER.TOOL", clip.Runes(c.Target, 49)), hint: "`mcp list` shows the servers, `mcp list SERVER` their tools"}
	}
	if err := c.objectAsArgs(); err != nil {
		return err
	}
	base, err := c.base(a)
	if err != nil {
		return err
	}
	invoke := func(ctx context.Context, b mux.Backend) error {
		if c.Verbose {
			ctx = a.showLogs(ctx)
		}
		ctx, done := a.callProgress(ctx, c.Target)
		out, err := b.Invoke(ctx, server, tool, mux.Args{Base: base, Pairs: c.Pairs, AllowUnknown: c.AllowUnknown})
		done()
		if err != nil {
			return err
		}
		target := out.Server + "." + out.Tool
		if err := renderResult(a, target, out.Result); err != nil {
			return err
		}
		if out.Result.IsError {
			return &toolError{target: target}
		}
		return nil
	}
	err = a.withBackend(invoke)
	// A server that asks for a wider scope gets it, the way `mcp auth
	// login` would, and the call is made once more.
	if lr := a.stepUpFor(err); lr != nil {
		if err := a.stepUp(lr); err != nil {
			return err
		}
		err = a.withBackend(invoke)
	}
	return err
}

// objectAsArgs takes a JSON object given in the place of the first
// key=value pair (`mcp call everything.get-sum '{"a":2,"b":3}'`) as
// --args: no pair begins with "{", so nothing else could be meant.
func (c *callCmd) objectAsArgs() error {
	if len(c.Pairs) == 0 || !strings.HasPrefix(strings.TrimSpace(c.Pairs[0]), "{") {
		return nil
	}
	if c.Args != "" {
		return &usageError{msg: "the arguments are given twice: as a JSON object and with --args", hint: "give them one way: key=value pairs override --args, one by one"}
	}
	c.Args, c.Pairs = c.Pairs[0], c.Pairs[1:]
	return nil
}

// base reads --args: inline JSON, @FILE, or - for stdin.
func (c *callCmd) base(a *app) (json.RawMessage, error) {
	var data []byte
	from := ""
	switch {
	case c.Args == "":
		return nil, nil
	case c.Args == "-" || strings.HasPrefix(c.Args, "@"):
		from = "stdin"
		open := idle.StdinOpener(a.stdin)
		if c.Args != "-" {
			from = c.Args[1:]
			open = idle.FileOpener(from)
		}
		b, err := idle.ReadInput("--args", from, a.globals.Timeout, catalog.MaxArgsSize, open)
		var te *idle.InputTimeoutError
		if errors.As(err, &te) {
			return nil, err
		} else if err != nil {
			return nil, &usageError{msg: "--args: " + err.Error()}
		}
		data = b
	default:
		data = []byte(c.Args)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, &usageError{msg: "--args: no JSON object given"}
	}
	if err := catalog.CheckArgsObject(data, from); err != nil {
		return nil, err
	}
	return data, nil
}
