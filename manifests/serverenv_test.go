package manifests

import (
	"slices"
	"strings"
	"testing"
)

var hostEnv = []string{
	"HOME=/home/ada", "PATH=/usr/bin", "USER=ada", "SHELL=/bin/sh", "LOGNAME=ada",
	"LANG=en_GB.UTF-8", "LC_TIME=C", "TMPDIR=/tmp/ada", "https_proxy=http://p:3128",
	"TERM=xterm-256color", "TERM_SESSION_ID=w0t0p0", "KITTY_WINDOW_ID=3", "WEZTERM_PANE=1",
	"GNOME_TERMINAL_SCREEN=/org/gnome/Terminal/screen/1", "SSH_CONNECTION=10.0.0.1 5 10.0.0.2 22",
	"VSCODE_GIT_IPC_HANDLE=/run/vscode.sock", "GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=aws",
	"AWS_PROFILE=dev", "AWS_REGION=eu-west-1", "SERVICE_URL=https://svc",
}

func TestEndpoint_ServerEnv(t *testing.T) {
	ep := Endpoint{Command: "x", PassEnv: []string{"AWS_PROFILE"}, Env: map[string]string{"API": "k", "LANG": "C"}}
	got := ep.serverEnv("linux", hostEnv)
	want := []string{"API=k", "AWS_PROFILE=dev", "HOME=/home/ada", "LANG=C", "LC_TIME=C", "LOGNAME=ada",
		"PATH=/usr/bin", "SHELL=/bin/sh", "TMPDIR=/tmp/ada", "USER=ada", "https_proxy=http://p:3128"}
	if !slices.Equal(got, want) {
		t.Errorf("ServerEnv =\n%q\nwant\n%q", got, want)
	}
	prefix := Endpoint{Command: "x", PassEnv: []string{"AWS_*"}}
	names := prefix.ServerEnvNames(hostEnv).Passed
	for _, n := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_SECRET_ACCESS_KEY"} {
		if !slices.Contains(names, n) {
			t.Errorf("AWS_* did not pass %s: %v", n, names)
		}
	}
}

// On Windows the base set is Windows's, and names match whatever their
// case, as the system treats them.
func TestEndpoint_ServerEnvWindows(t *testing.T) {
	env := []string{"Path=C:\\Windows", "SystemRoot=C:\\Windows", "USERPROFILE=C:\\Users\\ada", "ComSpec=cmd.exe",
		"HOME=C:\\x", "GITHUB_TOKEN=t", "aws_profile=dev"}
	ep := Endpoint{Command: "x", PassEnv: []string{"AWS_PROFILE"}, Env: map[string]string{"PATH": "D:\\bin"}}
	got := ep.serverEnv("windows", env)
	want := []string{"ComSpec=cmd.exe", "PATH=D:\\bin", "SystemRoot=C:\\Windows", "USERPROFILE=C:\\Users\\ada", "aws_profile=dev"}
	if !slices.Equal(got, want) {
		t.Errorf("ServerEnv on windows =\n%q\nwant\n%q", got, want)
	}
}

func TestEndpoint_Withheld(t *testing.T) {
	ep := Endpoint{Command: "x", Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}
	if got := ep.Withheld(hostEnv); !slices.Equal(got, []string{"AWS_SECRET_ACCESS_KEY"}) {
		t.Errorf("Withheld = %v, want the one credential the server does not get", got)
	}
}

// A multiplexer's identity holds what reaches servers and what ${VAR}s
// read, and nothing a terminal, a tab, a window or an SSH login sets.
func TestIdentityEnv(t *testing.T) {
	eps := map[string]Endpoint{
		"a": {Command: "x", Env: map[string]string{"TOKEN": "${GITHUB_TOKEN}", "OPT": "${UNSET_OPT:-1}"}},
		"b": {URL: "${SERVICE_URL}/mcp"},
		"c": {Command: "y", PassEnv: []string{"AWS_*"}},
	}
	got := identityEnv("linux", eps, hostEnv)
	for _, want := range []string{"GITHUB_TOKEN=ghp_x", "SERVICE_URL=https://svc", "UNSET_OPT", "AWS_REGION=eu-west-1", "HOME=/home/ada", "LC_TIME=C"} {
		if !slices.Contains(got, want) {
			t.Errorf("IdentityEnv lacks %q: %q", want, got)
		}
	}
	for _, kv := range got {
		for _, terminal := range []string{"TERM=", "TERM_SESSION_ID", "KITTY_WINDOW_ID", "WEZTERM_PANE", "GNOME_TERMINAL_SCREEN", "SSH_CONNECTION", "VSCODE_"} {
			if strings.HasPrefix(kv, terminal) {
				t.Errorf("IdentityEnv holds the terminal's %q", kv)
			}
		}
	}
	// Another tab of the same terminal is the same identity.
	tab := slices.Clone(hostEnv)
	for i, kv := range tab {
		if strings.HasPrefix(kv, "TERM_SESSION_ID=") {
			tab[i] = "TERM_SESSION_ID=w0t1p0"
		}
	}
	tab = append(tab, "TMUX_PANE=%3", "WINDOWID=123", "SSH_TTY=/dev/pts/4")
	if again := identityEnv("linux", eps, tab); !slices.Equal(again, got) {
		t.Errorf("another tab's identity differs:\n%q\n%q", again, got)
	}
}

func TestLoad_passEnv(t *testing.T) {
	eps, err := readServers(strings.NewReader(`{"mcpServers": {"a": {"command": "x", "passEnv": ["AWS_PROFILE", "AWS_*"]}}}`), "mcp.json", "mcpServers")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eps[0].PassEnv, []string{"AWS_PROFILE", "AWS_*"}) {
		t.Errorf("PassEnv = %v", eps[0].PassEnv)
	}
	for _, bad := range []string{`["*"]`, `["A-B"]`, `["1X"]`, `[""]`, `"AWS_*"`, `[3]`} {
		_, err := readServers(strings.NewReader(`{"mcpServers": {"a": {"command": "x", "passEnv": `+bad+`}}}`), "mcp.json", "mcpServers")
		if err == nil {
			t.Errorf("passEnv %s was accepted", bad)
		}
	}
	_, err = readServers(strings.NewReader(`{"mcpServers": {"a": {"url": "https://h/mcp", "passEnv": ["X"]}}}`), "mcp.json", "mcpServers")
	if err == nil || !strings.Contains(err.Error(), "started from command") {
		t.Errorf("passEnv on a url server: %v", err)
	}
}
