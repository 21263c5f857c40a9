package recipeinit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/explain"
	"github.com/mcpsh/mcp/internal/guide"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

// Hosts are the agent hosts HostConfig writes for, and the skill file of
// Claude Code.
var Hosts = []string{"claude-code", "codex", "cursor", "claude-desktop", "claude-code-skill"}

// PrintHostConfig writes what host needs to run agent of the recipe at
// dir: HostConfig for the hosts that run mcp serve, Skill for
// claude-code-skill.
func PrintHostConfig(ctx context.Context, w io.Writer, host, dir, agent string, open func(context.Context, mux.Target) (mux.Backend, error)) error {
	if host == "claude-code-skill" {
		return Skill(ctx, w, dir, agent, open)
	}
	exe, err := Executable()
	if err != nil {
		return err
	}
	s, err := HostConfig(host, exe, dir, agent)
	fmt.Fprint(w, s)
	return err
}

// Skill writes a Claude Code skill file (SKILL.md) for an agent in cli
// mode: a name and a description for Claude Code to choose it by, then
// the guide a session of the agent prints for mcp --help, its servers
// listed as the recipe at dir has them (which starts them: the recipe must
// be trusted).
func Skill(ctx context.Context, w io.Writer, dir, agent string, open func(context.Context, mux.Target) (mux.Backend, error)) error {
	s, err := agentSurface(dir, agent)
	if err != nil {
		return err
	}
	if s.Mode != catalog.ModeCLI {
		return &Error{Msg: fmt.Sprintf("agent %s is in %s mode, and a skill is for an agent with a shell (cli mode)", agent, s.Mode),
			Hint: "give Claude Code its tools with --print-host-config claude-code"}
	}
	t, err := mux.HostTarget(dir, false, agent)
	if err != nil {
		return err
	}
	b, err := open(ctx, t)
	if err != nil {
		return err
	}
	defer b.Close()
	cat, err := b.Catalog(ctx, mux.Listed)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "---\nname: mcp-%s\ndescription: The MCP tools of agent %s, used through the mcp command in this shell (search, list, call, run). Use them when a task needs %s.\n---\n",
		agent, agent, serverNames(cat))
	guide.Write(w, cat, explain.Summary)
	return nil
}

// serverNames names a catalog's servers for a description.
func serverNames(cat *mux.Catalog) string {
	names := make([]string, len(cat.Servers))
	for i, s := range cat.Servers {
		names[i] = s.ID
	}
	if len(names) == 0 {
		return "no server yet"
	}
	return words.Plural(len(names), "the server ", "the servers ") + strings.Join(names, ", ")
}

// HostConfig is what host needs to run an agent of the recipe at dir in
// tools mode (mcp serve), with exe the absolute path of mcp, since a host
// started outside a shell may not have mcp on its PATH: the command for
// Claude Code, the config.toml table for Codex, the mcp.json entry for
// Cursor and Claude Desktop.
func HostConfig(host, exe, dir, agent string) (string, error) {
	if agent == "" {
		return "", &Error{Msg: "--print-host-config needs --agent NAME: a host is given one agent's tools", Hint: "mcp init --print-host-config " + host + " --agent NAME"}
	}
	if err := toolsAgent(dir, agent); err != nil {
		return "", err
	}
	name := "mcp-" + agent
	args := []string{"serve", "--recipe", dir, "--agent", agent}
	switch host {
	case "claude-code":
		words := append([]string{"claude", "mcp", "add", name, "--", exe}, args...)
		for i, w := range words {
			words[i] = shell.Word(w)
		}
		return strings.Join(words, " ") + "\n", nil
	case "codex":
		var b bytes.Buffer
		enc := toml.NewEncoder(&b)
		enc.Indent = ""
		err := enc.Encode(map[string]any{"mcp_servers": map[string]hostEntry{name: {exe, args}}})
		return strings.TrimPrefix(b.String(), "[mcp_servers]\n"), err
	case "cursor", "claude-desktop":
		b, err := indentJSON(map[string]any{"mcpServers": map[string]hostEntry{name: {exe, args}}})
		return string(b), err
	}
	return "", &Error{Msg: fmt.Sprintf("--print-host-config: no host %q", host), Hint: "the hosts are " + strings.Join(Hosts, ", ")}
}

// agentSurface is the surface of agent in the recipe at dir.
func agentSurface(dir, agent string) (*catalog.Surface, error) {
	if agent == "" {
		return nil, &Error{Msg: "--print-host-config needs --agent NAME: a host is given one agent's tools"}
	}
	r, err := manifests.Load(dir)
	if err != nil {
		return nil, err
	}
	s, _, err := catalog.Resolve(r, agent)
	return s, err
}

// toolsAgent checks that the recipe at dir has agent, in tools mode, as
// mcp serve will want it.
func toolsAgent(dir, agent string) error {
	s, err := agentSurface(dir, agent)
	if err != nil {
		return err
	}
	if s.Mode != catalog.ModeTools {
		return &Error{Msg: fmt.Sprintf("agent %s is in %s mode, and mcp serve serves an agent in tools mode", agent, s.Mode),
			Hint: "give it `mode: tools` in its mcp block, or run it in a session: eval \"$(mcp session start --recipe " + shell.Word(dir) + " --agent " + agent + ")\""}
	}
	return nil
}

// hostEntry is a host's entry for mcp serve.
type hostEntry struct {
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args" toml:"args"`
}

// Executable is the absolute path of the running mcp, links resolved.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(exe)
}
