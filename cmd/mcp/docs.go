package main

import (
	"embed"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
	mangokong "github.com/alecthomas/mango-kong"
	"github.com/muesli/roff"

	"github.com/mcpsh/mcp/internal/complete"
	"github.com/mcpsh/mcp/internal/exit"
)

// Shell completion works by the shell running mcp again with COMP_LINE set
// to the words typed so far; internal/complete answers from the grammar of
// this invocation (inside a session the session's, so only its verbs are
// offered) and, for call's and list's tools, from what was last seen of
// them, before anything is parsed, and without starting anything.
//
// The scripts below only wire a shell to that answer. They call mcp by
// name, without arguments, so they keep working wherever mcp is installed
// and a session never sees a command line it would refuse.

// registerCompletion answers a completion request and exits, or does
// nothing when the shell is not asking.
func registerCompletion(parser *kong.Kong, a *app) {
	complete.Register(parser, a.inSession(), a.sessionID)
}

type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish,powershell" help:"bash, zsh, fish or powershell."`
}

func (c completionCmd) Run(a *app) error {
	_, err := fmt.Fprint(a.stdout, completionScripts[c.Shell])
	return err
}

// completionScripts wire each shell to that answer.
//
//go:embed completion/mcp.bash completion/mcp.zsh completion/mcp.fish completion/mcp.ps1
var completionFiles embed.FS

var completionScripts = map[string]string{
	"bash":       mustRead("completion/mcp.bash"),
	"zsh":        mustRead("completion/mcp.zsh"),
	"fish":       mustRead("completion/mcp.fish"),
	"powershell": mustRead("completion/mcp.ps1"),
}

func mustRead(name string) string {
	b, err := completionFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// manCmd prints mcp(1) in roff, generated from the host grammar, for a
// release archive or for man -l.
type manCmd struct{}

func (manCmd) Run(a *app, k *kong.Context) error {
	page := mangokong.NewManPage(1, k.Model).
		WithLongDescription("mcp lets an agent with a shell, or a person at a terminal, use the tools of the MCP servers "+
			"that a recipe authorizes, through four verbs: search, list, call and run. A recipe is a directory whose "+
			"package.json names its servers and agents under pi.mcp; `mcp check` shows what each agent may use, and "+
			"`mcp session start --agent NAME` fixes one agent's surface for every process started from that shell.").
		WithSection("Project trust", "A project directory's files that can start a process or send a credential "+
			"(a recipe's package.json, manifests and .pi/mcp.local.json; the editor configurations of the working directory) "+
			"start nothing until `mcp trust DIR` has recorded the directory with a digest of them, in mcp/trust.json of the user's "+
			"config directory; a changed file is untrusted again. --trust trusts them for one command and records nothing.").
		WithSection("Sessions", "A process with MCP_SESSION set is inside a session: its surface is fixed when the session starts, "+
			"mcp offers only search, list, call and run, and it refuses every other command, "+
			"ad-hoc transports, URL selectors, config overrides and persistence flags with exit status 2.").
		WithSection("Exit status", strings.Join(exit.Meanings, "; ")+".").
		WithSection("Environment", "MCP_SESSION names the session this process belongs to, the uid of the user who started it and its multiplexer's socket, ID:UID@SOCKET (set by `mcp session start`); mcp talks only to a socket that user listens on.")
	_, err := fmt.Fprint(a.stdout, page.Build(roff.NewDocument()))
	return err
}
