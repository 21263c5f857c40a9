// Package testenv gives tests real MCP servers: the npm packages pinned in
// npm/package.json (server-everything, server-memory, server-filesystem,
// and the servers of PinnedJS),
// and a fake server
// made of the test binary itself for fault tests.
//
// The npm servers are installed by `make test`; a test that needs them and
// finds them missing fails with a hint. Tests never skip.
package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpsh/mcp/manifests"
)

const hint = "run `make test`, which installs the npm test servers"

// Dir is the npm directory that holds the pinned test servers.
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatalf("testenv: cannot locate the npm test servers")
	}
	dir := filepath.Join(filepath.Dir(file), "npm")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol")); err != nil {
		t.Fatalf("testenv: npm test servers are not installed: %s", hint)
	}
	return dir
}

// Node is the node binary: the one on PATH, else the one npm installed.
func Node(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "npm", "node_modules", ".bin", "node")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testenv: node is not installed: %s", hint)
	}
	return p
}

func everythingJS(t testing.TB) string {
	return filepath.Join(Dir(t), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// EverythingStdio is server-everything over stdio.
func EverythingStdio(t testing.TB) manifests.Endpoint {
	t.Helper()
	return manifests.Endpoint{ID: "everything", Command: Node(t), Args: []string{everythingJS(t), "stdio"}}
}

// Memory is server-memory over stdio, keeping its graph in a temporary directory.
func Memory(t testing.TB) manifests.Endpoint {
	t.Helper()
	js := filepath.Join(Dir(t), "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	return manifests.Endpoint{
		ID:      "memory",
		Command: Node(t),
		Args:    []string{js},
		Env:     map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")},
	}
}

// FilesystemJS is server-filesystem's entry point.
func FilesystemJS(t testing.TB) string {
	return filepath.Join(Dir(t), "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
}

// Filesystem is server-filesystem over stdio, allowed to reach the
// directory root and nothing else.
func Filesystem(t testing.TB, root string) manifests.Endpoint {
	t.Helper()
	return manifests.Endpoint{ID: "filesystem", Command: Node(t), Args: []string{FilesystemJS(t), root}}
}

// PinnedJS are the entry points of the other real servers pinned in
// npm/package.json, light ones that start and list offline, by the
// variable a test script reads them from: THINKING_JS
// (server-sequential-thinking), CONTEXT7_JS (@upstash/context7-mcp, whose
// calls need the network), ESLINT_JS (@eslint/mcp) and CHART_JS
// (@antv/mcp-server-chart, whose calls need the network too).
func PinnedJS(t testing.TB) map[string]string {
	nm := filepath.Join(Dir(t), "node_modules")
	return map[string]string{
		"THINKING_JS": filepath.Join(nm, "@modelcontextprotocol", "server-sequential-thinking", "dist", "index.js"),
		"CONTEXT7_JS": filepath.Join(nm, "@upstash", "context7-mcp", "dist", "index.js"),
		"ESLINT_JS":   filepath.Join(nm, "@eslint", "mcp", "src", "mcp-cli.js"),
		"CHART_JS":    filepath.Join(nm, "@antv", "mcp-server-chart", "build", "index.js"),
	}
}

// EverythingHTTP starts server-everything in mode "sse" or "streamableHttp"
// on a free loopback port and returns its MCP URL (…/sse or …/mcp). The
// server is stopped, with its whole process group, when the test ends.
func EverythingHTTP(t testing.TB, mode string) string {
	t.Helper()
	path := map[string]string{"sse": "/sse", "streamableHttp": "/mcp"}[mode]
	if path == "" {
		t.Fatalf("testenv: unknown server-everything mode %q", mode)
	}
	node, js := Node(t), everythingJS(t)
	var lastErr error
	// Another process may take the port between choosing and binding it.
	for range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testenv: %v", err)
		}
		cmd := exec.Command(node, js, mode)
		cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
		ownGroup(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatalf("testenv: start server-everything: %v", err)
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(exited)
		}()
		stop := func() {
			killGroup(cmd.Process.Pid)
			<-exited
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if lastErr = waitListening(addr, exited); lastErr == nil {
			t.Cleanup(stop)
			return "http://" + addr + path
		}
		stop()
	}
	t.Fatalf("testenv: server-everything %s did not start: %v", mode, lastErr)
	return ""
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitListening(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("it exited before listening on %s", addr)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after 20s", addr)
}
