//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
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

// checkedMarker, on the line before a console block of the README or a
// page of docs/, says the block runs as it is written, after the page's
// blocks before it, and prints what it shows.
const checkedMarker = "<!-- checked console -->"

// readmeCheckout is where the examples pretend the repository is
// checked out; a checked block's output names the real checkout there.
const readmeCheckout = "/home/you/mcp"

// consoleStep is one command of a console block and what it printed.
type consoleStep struct {
	line int // in its page
	cmd  string
	want []string
}

// consoleBlocks reads the checked console blocks of a page's text.
func consoleBlocks(t *testing.T, page, text string) [][]consoleStep {
	t.Helper()
	var blocks [][]consoleStep
	var cur []consoleStep
	marked, in := false, false
	sc := bufio.NewScanner(strings.NewReader(text))
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
			t.Fatalf("%s:%d: a checked console block starts with output", page, n)
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

// The checked console examples of the README and of every page of docs/
// run as written, from a fresh home, and print what the page shows
// (stdout and stderr together; "…" in a page stands for any text, such as
// a session id). They cannot drift from what mcp does. Each page is one
// shell from the repository's root: the README's Quickstart builds mcp
// itself, and a page of docs/ finds it on PATH, as its reader would.
func TestReadmeConsoleExamples(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "mcp"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	checked := 0
	for _, page := range docPages(t) {
		blocks := consoleBlocks(t, page, pageText(t, page))
		if page == "README.md" && len(blocks) < 3 {
			t.Fatalf("found %d checked console blocks in the README, want the Quickstart's and the worked recipe's at least", len(blocks))
		}
		checked += len(blocks)
		if len(blocks) == 0 {
			continue
		}
		path := os.Getenv("PATH")
		if page != "README.md" {
			path = bin + string(os.PathListSeparator) + path
		} else {
			warmNpx(t, filepath.Join(root, "examples", "reference", "mcp.json"))
		}
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			checkConsole(t, root, page, path, blocks)
		})
	}
	if checked < 8 {
		t.Errorf("found %d checked console blocks in the README and docs/, want at least 8", checked)
	}
}

// checkConsole runs a page's checked blocks in one shell and compares
// what each command printed with what the page shows.
func checkConsole(t *testing.T, root, page, path string, blocks [][]consoleStep) {
	var steps []consoleStep
	for _, b := range blocks {
		steps = append(steps, b...)
	}
	got := runConsole(t, root, path, steps)
	for i, s := range steps {
		want := trimBlank(s.want)
		for j := range want {
			want[j] = strings.ReplaceAll(want[j], readmeCheckout, root)
		}
		have := trimBlank(got[i])
		if !matchLines(want, have) {
			t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nmcp printed:\n%s", page, s.line, s.cmd, strings.Join(want, "\n"), strings.Join(have, "\n"))
		}
	}
}

// runConsole runs the steps in one shell, so that cd, export and eval
// carry over as in a terminal, in a fresh home with the Go caches of this
// machine (npm's cache too, preferred to the registry, so that a server
// run through npx is fetched once), and returns each step's output lines.
func runConsole(t *testing.T, dir, path string, steps []consoleStep) [][]string {
	t.Helper()
	home := t.TempDir()
	tmp := filepath.Join(home, "tmp")
	mkdir(t, tmp)
	// npm's settings in the home's .npmrc, where a server run through npx
	// reads them too: servers get HOME, not the shell's npm_config_*.
	writeFile(t, filepath.Join(home, ".npmrc"), "cache="+npmCache(t)+"\nprefer-offline=true\n")
	t.Cleanup(func() { stopDaemons(t, tmp) })
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
		"PATH=" + path, "HOME=" + home, "TMPDIR=" + tmp, "XDG_RUNTIME_DIR=",
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOPATH=" + goEnv(t, "GOPATH"),
		"GOFLAGS=" + os.Getenv("GOFLAGS"), "GOPROXY=" + goEnv(t, "GOPROXY"), "GOTOOLCHAIN=" + os.Getenv("GOTOOLCHAIN"),
		"TERM=dumb", "npm_config_cache=" + npmCache(t), "npm_config_prefer_offline=true",
		"USER=you", "LOGNAME=you", "SHELL=/bin/bash", "LANG=C.UTF-8",
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the console script: %v\n%s", err, out)
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

// warmNpx fetches the packages a manifest's servers run through npx -y
// into npx's cache, as their first start would, so that the examples'
// first call waits for no download: a server's start is bounded.
func warmNpx(t *testing.T, manifest string) {
	t.Helper()
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", manifest, err)
	}
	for id, srv := range m.MCPServers {
		if srv.Command != "npx" || len(srv.Args) < 2 || srv.Args[0] != "-y" {
			continue
		}
		cmd := exec.Command("npx", "-y", "--package="+srv.Args[1], "true")
		cmd.Env = append(os.Environ(), "npm_config_cache="+npmCache(t), "npm_config_prefer_offline=true")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fetching server %s (%s) with npx: %v\n%s", id, srv.Args[1], err, out)
		}
	}
}

// npmCache is npm's cache directory on this machine.
func npmCache(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("npm", "config", "get", "cache").Output()
	if err != nil {
		t.Fatalf("npm config get cache: %v", err)
	}
	return strings.TrimSpace(string(out))
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
