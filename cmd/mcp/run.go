package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/idle"
	"github.com/mcpsh/mcp/internal/output"
	"github.com/mcpsh/mcp/internal/runhost"
	"github.com/mcpsh/mcp/internal/script"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/search"
)

type runCmd struct {
	File     string `arg:"" optional:"" help:"The program: a file, or - for stdin." placeholder:"FILE|-"`
	Eval     string `short:"e" name:"eval" help:"The program, given inline." placeholder:"CODE"`
	MaxCalls int    `name:"max-calls" default:"100" help:"Most tool calls the program may make."`

	AllowUnknown bool `name:"allow-unknown" help:"Send arguments a tool's input schema does not declare (otherwise refused when the schema lists its arguments)."`
}

func (c *runCmd) Run(a *app) error {
	// The program's own process starts while the configuration is read.
	child := script.StartChild()
	defer child.Close()
	name, src, err := c.source(a)
	if err != nil {
		return err
	}
	return a.withBackend(func(ctx context.Context, b mux.Backend) error {
		host, err := runhost.New(ctx, b, c.AllowUnknown, a.runHooks())
		if err != nil {
			return err
		}
		timeout := a.globals.Timeout
		if timeout > 0 {
			// The command's context is the limit: a silence that each
			// progress report of a call restarts.
			timeout = -1
		}
		val, err := child.Run(ctx, host, name, src, script.Limits{
			Timeout:  timeout,
			MaxCalls: c.MaxCalls,
		}, a.aboveProgress(a.stderr))
		var limit *script.LimitError
		if errors.As(err, &limit) && limit.Kind == "timeout" && a.globals.Timeout > 0 {
			// --timeout bounds the command's silences, not the program's
			// own clock: the limit is the one the user gave.
			limit.Limit = int64(a.globals.Timeout)
		}
		if err != nil {
			return err
		}
		if a.globals.JSON {
			return a.writeJSON(val)
		}
		return output.WriteBudgeted(a.stdout, a.stderr, "run", append(val, '\n'), int(a.globals.MaxOutput))
	})
}

func (c *runCmd) source(a *app) (name, src string, err error) {
	if c.Eval != "" {
		if c.File != "" {
			return "", "", &usageError{msg: "give the program as FILE or with -e, not both"}
		}
		return "-e", c.Eval, nil
	}
	name, from, open := "stdin", "stdin", idle.StdinOpener(a.stdin)
	if c.File != "" && c.File != "-" {
		name, from, open = filepath.Base(c.File), c.File, idle.FileOpener(c.File)
	}
	b, err := idle.ReadInput("the program", from, a.globals.Timeout, maxProgram, open)
	var te *idle.InputTimeoutError
	switch {
	case errors.As(err, &te):
		return "", "", err
	case err != nil:
		return "", "", &usageError{msg: err.Error()}
	case len(b) > maxProgram && from == "stdin":
		return "", "", &usageError{msg: "the program is larger than 1 MiB"}
	case len(b) > maxProgram:
		return "", "", &usageError{msg: fmt.Sprintf("cannot read %s (a program is at most 1 MiB)", c.File)}
	}
	return name, string(b), nil
}

const maxProgram = 1 << 20

// runHooks are what a program's host asks of this invocation: its
// warnings, its progress line, its logins for a wider scope and its search.
func (a *app) runHooks() runhost.Hooks {
	return runhost.Hooks{
		Warn:      a.warn,
		Progress:  a.callProgress,
		StepUpFor: a.stepUpFor,
		StepUp: func(lr *auth.LoginRequiredError) error {
			a.progressLine().Clear(nil) // the login speaks on stderr
			return a.stepUp(lr)
		},
		Search: func(ctx context.Context, b mux.Backend, req search.Request) ([]catalog.Tool, error) {
			ans, err := a.search(ctx, b, req)
			if err != nil {
				return nil, err
			}
			return ans.Tools, nil
		},
	}
}
