package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
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
	if verbs < 10 || hidden != 1 {
		t.Errorf("found %d verbs and %d hidden commands in the host grammar; want at least 10 and exactly 1 (man)", verbs, hidden)
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
}
