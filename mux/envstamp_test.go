package mux

import (
	"testing"

	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
)

// Two terminals, tabs, windows or SSH logins of one user are one
// multiplexer; what reaches servers, what ${VAR}s read and what mcp
// itself reads make another.
func TestEnvIdentity(t *testing.T) {
	eps := map[string]manifests.Endpoint{"a": {Command: "x", Env: map[string]string{"K": "${API_TOKEN}"}}}
	base := []string{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "TERM=xterm-256color", "TERM_SESSION_ID=A"}
	id := envIdentity(eps, base)
	same := [][]string{
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "TERM=tmux-256color", "TERM_SESSION_ID=B", "TMUX_PANE=%1"},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "KITTY_WINDOW_ID=3", "WEZTERM_PANE=2", "SSH_CONNECTION=a b c d"},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "GNOME_TERMINAL_SCREEN=/x", "VSCODE_IPC_HOOK_CLI=/run/v", "OLDPWD=/", "SHLVL=3"},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", session.EnvVar + "=x", "MCP_NO_MUX="},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "GITHUB_TOKEN=not read by this recipe"},
	}
	for _, env := range same {
		if got := envIdentity(eps, env); got != id {
			t.Errorf("envIdentity(%q) = %s, want %s: nothing a server sees differs", env, got, id)
		}
	}
	differ := [][]string{
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=two"},
		{"HOME=/home/ada", "PATH=/usr/bin"},
		{"HOME=/home/ada", "PATH=/opt/bin:/usr/bin", "API_TOKEN=one"},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "LANG=fr_FR.UTF-8"},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "XDG_CONFIG_HOME=/elsewhere"},
		{"HOME=/home/ada", "PATH=/usr/bin", "API_TOKEN=one", "MCP_UPSTREAM_IDLE=1s"},
	}
	for _, env := range differ {
		if got := envIdentity(eps, env); got == id {
			t.Errorf("envIdentity(%q) = %s, the same as %q's", env, got, base)
		}
	}
}
