//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Tab through the scripts the release ships (bash's and zsh's, as mcp
// completion prints them): call and list offer the surface's tools as mcp
// list last listed them, a tool's argument keys and an enum's values; in a
// session, only the session's, from its multiplexer.

// tabEnv is newMuxEnv's recipe with a tool whose arguments name their
// values (paint), a tool the package excludes (drop_table), an agent of
// two tools, and the completion scripts in its work directory. Its tools
// have been listed once, as a person would before pressing Tab.
func tabEnv(t *testing.T) (m *muxEnv, work string) {
	m = newMuxEnv(t)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"name": "tabtest", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
	  {"id": "fake", "tools": {"include": ["*"], "exclude": ["drop_table"]}},
	  {"id": "other", "tools": {"include": ["echo"]}}]}}}`)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {"fake": {"command": "fake-server", "env": {"FAKE_PAINT": "1"}},
	  "other": {"command": "fake-server"}}}`)
	writeFile(t, filepath.Join(m.root, "agents", "painter.yaml"), "mcp:\n  servers:\n    fake:\n      include: [paint, echo]\n")
	m.trust()
	if out := m.must("list"); !strings.Contains(out, "fake  ") {
		t.Fatalf("mcp list: %s", out)
	}
	work = t.TempDir()
	for _, shell := range []string{"bash", "zsh"} {
		writeFile(t, filepath.Join(work, "mcp."+shell), m.must("completion", shell))
	}
	return m, work
}

// bashDriver calls the function `complete -p mcp` names as bash does, with
// COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set, for each line it
// is given, and prints "== LINE" and then COMPREPLY, and what the function
// asked of compopt.
const bashDriver = `source "$1"; shift
spec=$(complete -p mcp) || exit 1
fn=${spec##* -F }; fn=${fn%% *}
compopt() { printf 'compopt'; printf ' %s' "$@"; printf '\n'; }
for text in "$@"; do
	read -ra COMP_WORDS <<<"$text"
	[[ $text == *' ' ]] && COMP_WORDS+=('')
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$text COMP_POINT=${#text} COMPREPLY=()
	printf '== %s\n' "$text"
	"$fn" mcp "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '%s\n' "${COMPREPLY[@]}"
done
`

// bashTab runs the bash script for each line in dir, with extra in the
// environment, and returns what each offered (sorted, with "compopt ..."
// lines).
func bashTab(t *testing.T, m *muxEnv, work, dir string, extra []string, lines ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", bashDriver, "bash", filepath.Join(work, "mcp.bash")}, lines...)...)
	cmd.Dir, cmd.Env = dir, append(slices.Clone(m.env), extra...)
	r := runProcess(t, cmd)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("bash: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out := map[string][]string{}
	var cur string
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if text, ok := strings.CutPrefix(l, "== "); ok {
			cur, out[text] = text, []string{}
		} else if l != "" {
			out[cur] = append(out[cur], l)
		}
	}
	for _, c := range out {
		slices.Sort(c)
	}
	return out
}

func TestTab_bash(t *testing.T) {
	m, work := tabEnv(t)
	fakeTools := []string{"fake.add_tool", "fake.big", "fake.crash", "fake.echo", "fake.fail", "fake.getenv", "fake.image", "fake.paint", "fake.sleep"}
	want := map[string][]string{
		"mcp call ":                      {"fake.", "other."},
		"mcp call fa":                    {"compopt -o nospace", "fake."},
		"mcp call fake.":                 fakeTools,
		"mcp call other.":                {"other.echo"},
		"mcp call fake.paint ":           {"color=", "glossy=", "note="},
		"mcp call fake.paint co":         {"color=", "compopt -o nospace"},
		"mcp call fake.paint color=":     {"blue", "green", "red"},
		"mcp call fake.paint color=g":    {"green"},
		"mcp call fake.paint color=red ": {"glossy=", "note="},
		"mcp call fake.paint glossy=":    {"false", "true"},
		"mcp list ":                      {"fake.", "other."},
		"mcp list fake.pa":               {"fake.paint"},
		"mcp --agent painter call fake.": {"fake.echo", "fake.paint"},
		"mcp call --agent painter ":      {"compopt -o nospace", "fake."},
		"mcp li":                         {"list"},
		"mcp call --al":                  {"--allow-unknown"},
	}
	lines := make([]string, 0, len(want))
	for l := range want {
		lines = append(lines, l)
	}
	got := bashTab(t, m, work, m.root, nil, lines...)
	for l, w := range want {
		if !slices.Equal(got[l], w) {
			t.Errorf("%q offers %q, want %q", l, got[l], w)
		}
	}
}

// In a session Tab offers the session's tools, which its multiplexer has
// seen, and nothing of the recipe the working directory is in: here
// another, whose server would leave a file if it started.
func TestTab_bashSession(t *testing.T) {
	m, work := tabEnv(t)
	r := m.run(nil, "session", "start", "--agent", "painter")
	id, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	elsewhere := filepath.Join(work, "elsewhere")
	marker := filepath.Join(work, "decoy-started")
	writeFile(t, filepath.Join(elsewhere, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [{"id": "decoy", "tools": {"include": ["*"]}}]}}}`)
	writeFile(t, filepath.Join(elsewhere, "mcp.json"), `{"mcpServers": {"decoy": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`)
	want := map[string][]string{
		"mcp call ":            {"compopt -o nospace", "fake."},
		"mcp call fake.":       {"fake.echo", "fake.paint"},
		"mcp call fake.paint ": {"color=", "glossy=", "note="},
		"mcp list fake.e":      {"fake.echo"},
		"mcp call other.":      {},
		"mcp ":                 {"call", "list", "run", "search"},
	}
	lines := make([]string, 0, len(want))
	for l := range want {
		lines = append(lines, l)
	}
	got := bashTab(t, m, work, elsewhere, []string{"MCP_SESSION=" + id}, lines...)
	for l, w := range want {
		if !slices.Equal(got[l], w) {
			t.Errorf("in the session %q offers %q, want %q", l, got[l], w)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the working directory's server was started")
	}
	if r := m.run(nil, "session", "stop", strings.Split(id, ":")[0]); r.code != 0 {
		t.Errorf("session stop: exit %d, %s", r.code, r.stderr)
	}
}

// zshSetup loads the completion system and the script under zsh -f, and
// records, for each Tab, the matches the script adds ($CAP) and the line
// after it (^T writes it to $OUT).
const zshSetup = `PS1='> '
autoload -Uz compinit && compinit -u -D
source "$SCRIPT"
compadd() {
	local -a hits
	builtin compadd -O hits "$@"
	print -rl -- "${hits[@]}" >>"$CAP"
	builtin compadd "$@"
}
dump() { print -r -- "<$BUFFER>" >>"$OUT"; BUFFER= }
zle -N dump
bindkey '^T' dump
print -r -- ready >>"$OUT"
`

func TestTab_zsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Fatal("zsh is not installed, and this test drives the zsh script the release ships: `make test` installs it as root on Debian (apt-get install zsh)")
	}
	m, work := tabEnv(t)
	out, capf, setup := filepath.Join(work, "zsh.out"), filepath.Join(work, "zsh.cap"), filepath.Join(work, "setup.zsh")
	writeFile(t, setup, zshSetup)
	cmd := exec.Command(zsh, "-f", "-i")
	cmd.Dir = m.root
	cmd.Env = append(slices.Clone(m.env), "TERM=xterm", "SCRIPT="+filepath.Join(work, "mcp.zsh"), "CAP="+capf, "OUT="+out)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	var screen syncBuffer
	go func() { _, _ = io.Copy(&screen, ptmx) }()
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = ptmx.Close()
	}()
	lines := 0
	// wait waits for the next line of $OUT.
	wait := func() string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			data, _ := os.ReadFile(out)
			if all := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(data) > 0 && len(all) > lines {
				lines++
				return all[lines-1]
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("zsh did not answer; the terminal shows:\n%s", screen.String())
		return ""
	}
	if _, err := io.WriteString(ptmx, "source "+setup+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := wait(); got != "ready" {
		t.Fatalf("zsh setup: %q", got)
	}
	for _, c := range []struct {
		typed, line string
		matches     []string
	}{
		{"mcp call fa", "mcp call fake.", []string{"fake."}},
		{"mcp call fake.pa", "mcp call fake.paint ", []string{"fake.paint"}},
		{"mcp call fake.paint ", "mcp call fake.paint ", []string{"color=", "glossy=", "note="}},
		{"mcp call fake.paint col", "mcp call fake.paint color=", []string{"color="}},
		{"mcp call fake.paint color=gr", "mcp call fake.paint color=green ", []string{"green"}},
		{"mcp --agent painter call ", "mcp --agent painter call fake.", []string{"fake."}},
		{"mcp li", "mcp list ", []string{"list"}},
	} {
		if err := os.WriteFile(capf, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(ptmx, c.typed+"\t\x14"); err != nil {
			t.Fatal(err)
		}
		if got := wait(); got != "<"+c.line+">" {
			t.Errorf("%q then Tab: the line is %s, want <%s>", c.typed, got, c.line)
		}
		data, _ := os.ReadFile(capf)
		got := strings.Fields(string(data))
		slices.Sort(got)
		if !slices.Equal(got, c.matches) {
			t.Errorf("%q then Tab: matches %q, want %q", c.typed, got, c.matches)
		}
	}
}

// syncBuffer is a buffer one goroutine writes while another reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
