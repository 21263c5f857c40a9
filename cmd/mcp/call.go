package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux"
)

type callCmd struct {
	Target string   `arg:"" help:"The tool, as SERVER.TOOL." placeholder:"SERVER.TOOL"`
	Pairs  []string `arg:"" optional:"" help:"Arguments: key=value (coerced by the tool's schema) or key:=JSON (raw)." placeholder:"KEY=VALUE"`
	Args   string   `help:"Arguments as a JSON object, @FILE to read one from a file, or - for stdin; key=value pairs override it." placeholder:"JSON|@FILE|-"`
}

// toolError says the tool ran and reported an error: exit 1. Its output has
// been printed already.
type toolError struct{ target string }

func (e *toolError) Error() string { return e.target + " reported an error" }
func (e *toolError) ExitCode() int { return exit.ToolError }

func (c *callCmd) Run(a *app) error {
	server, tool := splitTarget(c.Target)
	if server == "" || tool == "" {
		return &usageError{msg: fmt.Sprintf("%q is not SERVER.TOOL", clipArg(c.Target)), hint: "`mcp list` shows the servers, `mcp list SERVER` their tools"}
	}
	base, err := c.base(a.stdin)
	if err != nil {
		return err
	}
	return a.withBackend(func(ctx context.Context, eng mux.Backend) error {
		return c.call(ctx, a, eng, server, tool, base)
	})
}

func (c *callCmd) call(ctx context.Context, a *app, eng mux.Backend, server, tool string, base json.RawMessage) error {
	t, err := eng.Tool(ctx, server, tool)
	if err != nil {
		return err
	}
	args, err := catalog.BuildArgs(t.InputSchema, base, c.Pairs)
	if err != nil {
		return err
	}
	if err := catalog.ValidateArgs(t.InputSchema, args); err != nil {
		return &invalidArgs{err: err, signature: t.Server + "." + t.Signature()}
	}
	res, err := eng.Call(ctx, server, tool, args)
	if err != nil {
		return err
	}
	if err := renderResult(a, t.Server+"."+t.Name, res); err != nil {
		return err
	}
	if res.IsError {
		return &toolError{target: t.Server + "." + t.Name}
	}
	return nil
}

// invalidArgs carries the tool's signature for the hint.
type invalidArgs struct {
	err       error
	signature string
}

func (e *invalidArgs) Error() string { return e.err.Error() }
func (e *invalidArgs) Unwrap() error { return e.err }
func (e *invalidArgs) ExitCode() int { return exit.Usage }
func (e *invalidArgs) advice() string {
	return "the tool's signature is " + e.signature + "; `mcp list " + strings.SplitN(e.signature, "(", 2)[0] + " --schema` shows the schema"
}

// base reads --args: inline JSON, @FILE, or - for stdin.
func (c *callCmd) base(stdin io.Reader) (json.RawMessage, error) {
	var data []byte
	switch {
	case c.Args == "":
		return nil, nil
	case c.Args == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, catalog.MaxArgsSize+1))
		if err != nil {
			return nil, fmt.Errorf("reading arguments from stdin: %w", err)
		}
		data = b
	case strings.HasPrefix(c.Args, "@"):
		f, err := os.Open(c.Args[1:])
		if err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--args: cannot read %s: %v", c.Args[1:], errNoPath(err))}
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, catalog.MaxArgsSize+1))
		if err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--args: cannot read %s", c.Args[1:])}
		}
		data = b
	default:
		data = []byte(c.Args)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, &usageError{msg: "--args: no JSON object given"}
	}
	return data, nil
}

// errNoPath drops the path from an *os.PathError, which the message names already.
func errNoPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
