package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/output"
	"github.com/mcpsh/mcp/internal/parseerr"
	"github.com/mcpsh/mcp/internal/version"
)

// Globals are the flags every verb takes.
type Globals struct {
	JSON      bool          `help:"Print machine-readable JSON on stdout."`
	Timeout   time.Duration `default:"60s" help:"Give up on an upstream request after this long without a word from it: each progress report restarts the clock (cancels it upstream)."`
	MaxOutput output.Size   `name:"max-output" default:"50KB" help:"Cut text output longer than this and save the whole of it to a file."`
}

// sessionCLI is the whole grammar inside a session.
type sessionCLI struct {
	Globals
	Search searchCmd `cmd:"" help:"Rank the authorized tools for a few words.\n\n  mcp search contact lookup"`
	List   listCmd   `cmd:"" help:"List servers, a server's tools, or one tool's signature.\n\n  mcp list\n  mcp list contacts\n  mcp list contacts.search_contacts --schema"`
	Call   callCmd   `cmd:"" help:"Call a tool.\n\n  mcp call contacts.search_contacts query=\"Ada Lovelace\" limit=3"`
	Run    runCmd    `cmd:"" help:"Run a JavaScript program whose functions are the authorized tools.\n\n  mcp run -e 'const r = await contacts.search_contacts({query: \"ada\"}); r.contacts.length'"`
}

// hostCLI is the grammar outside a session: the session verbs plus the
// host's own commands.
type hostCLI struct {
	Globals
	Recipe string `help:"Recipe directory (default: the nearest directory at or above the working directory whose package.json has pi.mcp)." placeholder:"DIR"`
	Agent  string `help:"Use this agent's surface instead of the whole package boundary." placeholder:"NAME"`
	// TrustOnce is --trust; the trust command is Trust.
	TrustOnce bool `name:"trust" help:"Trust the recipe (or the working directory's MCP files) for this command only: its servers may start, nothing is recorded, and no multiplexer keeps them after it."`

	ShowVersion kong.VersionFlag `name:"version" help:"Print the version, commit and build date."`

	Search  searchCmd   `cmd:"" help:"Rank the authorized tools for a few words.\n\n  mcp search contact lookup"`
	List    hostListCmd `cmd:"" help:"List servers, a server's tools, or one tool's signature; --sources: the files they came from.\n\n  mcp list\n  mcp list contacts\n  mcp list contacts.search_contacts --schema\n  mcp list --sources"`
	Call    callCmd     `cmd:"" help:"Call a tool.\n\n  mcp call contacts.search_contacts query=\"Ada Lovelace\" limit=3"`
	Run     runCmd      `cmd:"" help:"Run a JavaScript program whose functions are the authorized tools.\n\n  mcp run -e 'const r = await contacts.search_contacts({query: \"ada\"}); r.contacts.length'"`
	Init    initCmd     `cmd:"" help:"Make a recipe of the servers you already have: a package boundary of their tools today, and an agent file per --agent.\n\n  mcp init ~/research --from examples/claude-desktop/claude_desktop_config.json --agent researcher --include memory.read_graph,memory.search_nodes\n  mcp init examples/reference --print-host-config cursor --agent assistant"`
	Check   checkCmd    `cmd:"" help:"Validate the recipe and print each agent's resolved surface.\n\n  mcp check --agent support"`
	Session sessionCmd  `cmd:"" help:"Start or stop a session: a fixed surface for one agent.\n\n  eval \"$(mcp session start --agent support)\""`
	Trust   trustCmd    `cmd:"" help:"Let a project directory's servers start: record it with a digest of the files that can start a process or send a credential.\n\n  mcp trust\n  mcp trust examples/contacts\n  mcp trust --list\n  mcp trust --forget examples/contacts"`
	Auth    authCmd     `cmd:"" help:"Log in to servers that use OAuth, log out, show stored logins.\n\n  mcp auth login SERVER"`
	Daemon  daemonCmd   `cmd:"" help:"Show or stop the multiplexers that keep servers warm.\n\n  mcp daemon status\n  mcp daemon stop --all"`
	Serve   serveCmd    `cmd:"" help:"Tools mode: one stdio MCP server with an agent's eager tools, and mcp_search for its deferred ones.\n\n  mcp serve --recipe examples/reference --agent assistant"`
	Version versionCmd  `cmd:"" help:"Print the version, commit and build date."`

	Completion completionCmd `cmd:"" help:"Print the tab-completion script for bash, zsh, fish or PowerShell.\n\n  source <(mcp completion bash)"`
	Man        manCmd        `cmd:"" help:"Print the manual page (roff).\n\n  mcp man | man -l -"`
}

type versionCmd struct{}

func (versionCmd) Run(a *app) error {
	if a.globals.JSON {
		return a.writeJSON(build.JSON())
	}
	fmt.Fprintln(a.stdout, build.String())
	return nil
}

// exitCode carries kong's request to exit (after --help) out of Parse.
type exitCode int

func (a *app) run(args []string) (err error) {
	var grammar any
	var host hostCLI
	var sess sessionCLI
	desc := "Use the MCP tools a recipe has authorized, from a shell."
	if a.inSession() && helpRequest(args) {
		return a.sessionGuide()
	}
	if a.inSession() {
		grammar = &sess
		a.globals = &sess.Globals
		desc += " This is a session: its surface is fixed, and only search, list, call and run are available."
	} else {
		grammar = &host
		a.globals = &host.Globals
	}
	parser, err := kong.New(grammar,
		kong.Name("mcp"),
		kong.Description(desc),
		kong.Writers(a.stdout, a.stderr),
		kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(a),
		kong.Vars{"version": build.String()},
	)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(exitCode)
			if !ok {
				panic(r)
			}
			if code != 0 {
				err = &usageError{msg: "invalid usage"}
			}
		}
	}()
	registerCompletion(parser, a)
	if len(args) == 0 {
		args = []string{"--help"}
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		var pe *kong.ParseError
		if errors.As(err, &pe) {
			if msg, hint, ok := parseerr.Explain(parser, pe, args); ok {
				return &usageError{msg: msg, hint: hint}
			}
			return &usageError{msg: pe.Error(), hint: "run `mcp --help` for the verbs and flags"}
		}
		return err
	}
	a.recipeDir, a.agent, a.trustOnce = host.Recipe, host.Agent, host.TrustOnce
	return kctx.Run(a)
}

// usageError is a malformed command line: exit 2.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string  { return e.msg }
func (e *usageError) ExitCode() int  { return exit.Usage }
func (e *usageError) advice() string { return e.hint }

// Version, Commit and Date are set at release time with
// -ldflags "-X main.Version=1.2.3 -X main.Commit=SHA -X main.Date=RFC3339".
// A binary built without them (go install, go build) describes itself from
// the build information the Go toolchain records instead.
var Version, Commit, Date string

// build is this binary's version, as mcp prints it (build.String()) and
// gives it to servers (build.Number()).
var build = version.Current(Version, Commit, Date)
