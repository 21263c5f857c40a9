package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/mcpsh/mcp/internal/exit"
)

// runOutside runs mcp outside a session, whatever the environment says.
func runOutside(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, out: &stdout, errOut: &stderr}
	if code := report(&stderr, a.run(args)); code != 0 {
		t.Fatalf("mcp %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("mcp %s wrote to stderr: %s", strings.Join(args, " "), stderr.String())
	}
	return stdout.String()
}

func TestDocs_manNamesEveryHostVerb(t *testing.T) {
	page := runOutside(t, "man")
	if !strings.HasPrefix(page, ".TH MCP 1 ") {
		t.Fatalf("not a section 1 man page: %.60q", page)
	}
	parser, err := kong.New(&hostCLI{}, kong.Name("mcp"))
	if err != nil {
		t.Fatal(err)
	}
	var verbs, hidden int
	for _, cmd := range parser.Model.Children {
		// mango writes each command as a bold tagged paragraph: \fBname ...
		entry := `\fB` + cmd.Name
		if cmd.Hidden {
			hidden++
			if strings.Contains(page, entry+" ") || strings.Contains(page, entry+`\fP`) {
				t.Errorf("the man page names the hidden command %q", cmd.Name)
			}
			continue
		}
		verbs++
		if !strings.Contains(page, entry) {
			t.Errorf("the man page does not name %q", cmd.Name)
		}
		for _, sub := range cmd.Children {
			if !strings.Contains(page, `\fB`+cmd.Name+" "+sub.Name) {
				t.Errorf("the man page does not name %q", cmd.Name+" "+sub.Name)
			}
		}
	}
	if verbs < 10 || hidden != 0 {
		t.Errorf("found %d verbs and %d hidden commands in the host grammar; want at least 10, and none hidden", verbs, hidden)
	}
	for _, flag := range []string{"--json", "--timeout", "--recipe", "--agent", "--version"} {
		if !strings.Contains(page, `\fB`+flag) {
			t.Errorf("the man page does not describe %s", flag)
		}
	}
	for _, section := range []string{".SH SESSIONS", ".SH EXIT STATUS", ".SH ENVIRONMENT"} {
		if !strings.Contains(page, section+"\n") {
			t.Errorf("the man page has no %s section", section)
		}
	}
	// groff, where it is installed, reads it without a warning (-k: as man
	// does, through preconv, since help texts may hold UTF-8).
	if groff, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command(groff, "-k", "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(page)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("groff: %v\n%s", err, out)
		}
	}
}

func TestDocs_completionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		script := runOutside(t, "completion", shell)
		// The script calls mcp by name, so it works wherever mcp is on
		// PATH, and with no arguments, so a session never refuses it.
		if !strings.Contains(script, "command mcp 2>/dev/null\n") && !strings.Contains(script, "command mcp 2>/dev/null)") {
			t.Errorf("%s script does not call mcp by name without arguments:\n%s", shell, script)
		}
		if !strings.Contains(script, "COMP_LINE=") && !strings.Contains(script, "COMP_LINE (") {
			t.Errorf("%s script does not pass COMP_LINE:\n%s", shell, script)
		}
	}
	// PowerShell's runs the mcp application (never an alias or function of
	// that name) without arguments, with the line up to the cursor.
	script := runOutside(t, "completion", "powershell")
	for _, want := range []string{
		"Register-ArgumentCompleter -Native -CommandName mcp, mcp.exe",
		"$env:COMP_LINE = $line\n",
		"& (Get-Command mcp -CommandType Application | Select-Object -First 1) 2>$null\n",
		"$env:COMP_LINE, $env:COMP_POINT = $saved\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the powershell script does not say %q:\n%s", want, script)
		}
	}
}

// The README's first command works as it is written on a fresh machine
// (a home with nothing in it), records nothing, and leaves a later
// command without --trust untrusted.
func TestDocs_firstCommand(t *testing.T) {
	_, setup, _ := strings.Cut(pageText(t, "README.md"), "\n## Set-up\n")
	_, rest, _ := strings.Cut(setup, "```sh\n")
	line, _, _ := strings.Cut(rest, "\n")
	args, ok := strings.CutPrefix(line, "go run ./cmd/mcp ")
	if !ok {
		t.Fatalf("the README's first command is %q, not go run ./cmd/mcp", line)
	}
	// The Go toolchain keeps its caches: the example server is built with
	// go run, and a fresh machine would download its modules.
	for _, v := range []string{"GOMODCACHE", "GOCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(v, strings.TrimSpace(string(out)))
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", home)
	t.Setenv("MCP_SESSION", "")
	os.Unsetenv("MCP_SESSION")
	t.Chdir(filepath.Join("..", ".."))
	run := func(args ...string) (int, string, string) {
		var stdout, stderr strings.Builder
		code := Main(args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := run(strings.Fields(args)...)
	if code != 0 || !strings.Contains(stdout, "Ada Lovelace") {
		t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", line, code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "mcp", "trust.json")); !os.IsNotExist(err) {
		t.Errorf("--trust recorded something: %v", err)
	}
	without := strings.Replace(args, "--trust ", "", 1)
	if code, _, stderr := run(strings.Fields(without)...); code != exit.Config || !strings.Contains(stderr, "which you have not trusted") {
		t.Errorf("without --trust: exit %d, stderr %q", code, stderr)
	}
}

// The configuration reference says how to find a server's tool names
// before writing the boundary: let every tool through, list them, then
// narrow.
func TestDocs_findingToolNames(t *testing.T) {
	_, section, ok := strings.Cut(pageText(t, "docs/configuration.md"), "\n## Finding the tool names\n")
	if !ok {
		t.Fatal("docs/configuration.md does not say how to find the tool names")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, want := range []string{`"include": ["*"]`, "`mcp list files`", "files.read_text_file --schema", "`mcp check`", "adds later"} {
		if !strings.Contains(strings.Join(strings.Fields(section), " "), want) {
			t.Errorf("docs/configuration.md does not say %s", want)
		}
	}
}

// make build writes the binary where the README's Quickstart builds it,
// so that the PATH the Quickstart exports finds either.
func TestDocs_makeBuildAgreesWithQuickstart(t *testing.T) {
	quick := regexp.MustCompile("(?m)^\\$ go build -o (\\S+) ./cmd/mcp ").FindStringSubmatch(pageText(t, "README.md"))
	if quick == nil {
		t.Fatal("the README's Quickstart does not build mcp with go build -o")
	}
	_, rule, ok := strings.Cut(pageText(t, "Makefile"), "\nbuild:\n")
	if !ok {
		t.Fatal("the Makefile has no build rule")
	}
	out := regexp.MustCompile(`go build .*-o (\S+) \./cmd/mcp`).FindStringSubmatch(rule)
	if out == nil || out[1] != quick[1] {
		t.Errorf("make build writes %v, the Quickstart builds %s", out, quick[1])
	}
}

// The man page, help and a session's guide say the exit codes in one
// wording, and docs/exit-codes.md has a row for each of them.
func TestDocs_exitCodesAgree(t *testing.T) {
	page := runOutside(t, "man")
	_, section, _ := strings.Cut(page, ".SH EXIT STATUS\n")
	section, _, _ = strings.Cut(section, ".SH ")
	// roff escapes "-" and may break lines: compare words.
	words := strings.Fields(strings.ReplaceAll(section, `\-`, "-"))
	flat := " " + strings.Join(words, " ") + " "
	table, err := os.ReadFile("../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range exit.Meanings {
		if !strings.Contains(flat, " "+strings.Join(strings.Fields(line), " ")) {
			t.Errorf("the man page's exit status does not say %q", line)
		}
		if !strings.HasPrefix(line, fmt.Sprintf("%d ", i)) {
			t.Errorf("exit code line %d is %q", i, line)
		}
		if !strings.Contains(string(table), fmt.Sprintf("\n| %d | ", i)) {
			t.Errorf("docs/exit-codes.md has no row for %d", i)
		}
	}
}
