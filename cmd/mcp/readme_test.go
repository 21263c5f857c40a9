//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// checkedMarker, on the line before a console block of the README, says
// the block runs as it is written, from the repository's root, and prints
// what it shows.
const checkedMarker = "<!-- checked console -->"

// readmeCheckout is where the README's examples pretend the repository is
// checked out; a checked block's output names the real checkout there.
const readmeCheckout = "/home/you/mcp"

// consoleStep is one command of a console block and what it printed.
type consoleStep struct {
	line int // in the README
	cmd  string
	want []string
}

// consoleBlocks reads the checked console blocks of the README's text.
func consoleBlocks(t *testing.T, readme string) [][]consoleStep {
	t.Helper()
	var blocks [][]consoleStep
	var cur []consoleStep
	marked, in := false, false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !in && strings.TrimSpace(line) == checkedMarker:
			marked = true
		case !in && marked && line == "```console":
			in, marked, cur = true, false, nil
		case in && line == "```":
			in = false
			blocks = append(blocks, cur)
		case in && strings.HasPrefix(line, "$ "):
			cur = append(cur, consoleStep{line: n, cmd: stripComment(strings.TrimPrefix(line, "$ "))})
		case in && len(cur) > 0 && commentOnly.MatchString(line):
			// a comment that goes on from the line above
		case in && len(cur) > 0:
			cur[len(cur)-1].want = append(cur[len(cur)-1].want, stripComment(line))
		case in:
			t.Fatalf("README.md:%d: a checked console block starts with output", n)
		default:
			marked = marked && strings.TrimSpace(line) == ""
		}
	}
	return blocks
}

// commentTail is a comment the README aligns to the right of a command or
// of its output: two spaces or more, then "# ".
var commentTail = regexp.MustCompile(`\s{2,}# .*$`)

// commentOnly is an output line that holds only such a comment.
var commentOnly = regexp.MustCompile(`^\s+# `)

func stripComment(s string) string {
	return strings.TrimRight(commentTail.ReplaceAllString(s, ""), " ")
}

// The README's checked console examples run as written, from a fresh home,
// and print what the README shows (stdout and stderr together; "…" in the
// README stands for any text, such as a session id). They cannot drift
// from what mcp does.
func TestReadmeConsoleExamples(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := consoleBlocks(t, readmeText(t))
	if len(blocks) < 2 {
		t.Fatalf("found %d checked console blocks in the README, want the Quickstart's at least", len(blocks))
	}
	var steps []consoleStep
	for _, b := range blocks {
		steps = append(steps, b...)
	}
	got := runConsole(t, root, steps)
	for i, s := range steps {
		want := trimBlank(s.want)
		for j := range want {
			want[j] = strings.ReplaceAll(want[j], readmeCheckout, root)
		}
		have := trimBlank(got[i])
		if !matchLines(want, have) {
			t.Errorf("README.md:%d: $ %s\nthe README shows:\n%s\nmcp printed:\n%s", s.line, s.cmd, strings.Join(want, "\n"), strings.Join(have, "\n"))
		}
	}
}

// runConsole runs the steps in one shell, so that cd, export and eval
// carry over as in a terminal, in a fresh home with the Go caches of this
// machine, and returns each step's output lines.
func runConsole(t *testing.T, dir string, steps []consoleStep) [][]string {
	t.Helper()
	home := t.TempDir()
	tmp := filepath.Join(home, "tmp")
	mkdir(t, tmp)
	t.Cleanup(func() { stopDaemons(t, filepath.Join(tmp, "mcp-"+strconv.Itoa(os.Getuid()))) })
	var script strings.Builder
	script.WriteString("exec 2>&1\n")
	for i, s := range steps {
		fmt.Fprintf(&script, "__rc=$?; printf '\\n@@@ %d\\n'; (exit $__rc)\n%s\n", i, s.cmd)
	}
	script.WriteString("printf '\\n@@@ end\\n'\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(script.String())
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "XDG_RUNTIME_DIR=",
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOPATH=" + goEnv(t, "GOPATH"),
		"GOFLAGS=" + os.Getenv("GOFLAGS"), "GOPROXY=" + goEnv(t, "GOPROXY"), "GOTOOLCHAIN=" + os.Getenv("GOTOOLCHAIN"),
		"TERM=dumb",
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the README's console script: %v\n%s", err, out)
	}
	parts := strings.Split(string(out), "\n@@@ ")
	got := make([][]string, len(steps))
	for _, p := range parts[1:] {
		head, body, _ := strings.Cut(p, "\n")
		if i, err := strconv.Atoi(head); err == nil && i < len(steps) {
			got[i] = strings.Split(body, "\n")
		}
	}
	return got
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// illustrativeID is a hex word the README cuts short, such as a session
// id ("5f0c…"): it stands for any id.
var illustrativeID = regexp.MustCompile(`(^|[\s@])[0-9a-f]+…`)

// matchLines compares line by line; "…" in want matches any text, and so
// does a hex word cut short with it.
func matchLines(want, have []string) bool {
	if len(want) != len(have) {
		return false
	}
	for i := range want {
		parts := strings.Split(illustrativeID.ReplaceAllString(want[i], "$1…"), "…")
		for j, p := range parts {
			parts[j] = regexp.QuoteMeta(p)
		}
		if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(have[i]) {
			return false
		}
	}
	return true
}
