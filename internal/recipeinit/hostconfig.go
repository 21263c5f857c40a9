package recipeinit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/manifests"
)

// Hosts are the agent hosts HostConfig writes for.
var Hosts = []string{"claude-code", "codex", "cursor", "claude-desktop"}

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

// toolsAgent checks that the recipe at dir has agent, in tools mode, as
// mcp serve will want it.
func toolsAgent(dir, agent string) error {
	r, err := manifests.Load(dir)
	if err != nil {
		return err
	}
	s, _, err := catalog.Resolve(r, agent)
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
