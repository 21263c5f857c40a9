//go:build linux

package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
)

func TestMedianPercentile(t *testing.T) {
	tests := []struct {
		xs          []float64
		median, p95 float64
	}{
		{[]float64{3}, 3, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 4},
		{[]float64{5, 1, 4, 2, 3}, 3, 5},
	}
	for _, tt := range tests {
		if got := median(tt.xs); got != tt.median {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.median)
		}
		if got := percentile(tt.xs, 95); got != tt.p95 {
			t.Errorf("percentile(%v, 95) = %v, want %v", tt.xs, got, tt.p95)
		}
	}
	// Nearest rank: the 95th of 1..100 is 95, of 1..40 is 38.
	var hundred, forty []float64
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, float64(i))
		if i <= 40 {
			forty = append(forty, float64(i))
		}
	}
	if got := percentile(hundred, 95); got != 95 {
		t.Errorf("p95 of 1..100 = %v, want 95", got)
	}
	if got := percentile(forty, 95); got != 38 {
		t.Errorf("p95 of 1..40 = %v, want 38", got)
	}
	if !math.IsNaN(median(nil)) || !math.IsNaN(percentile(nil, 95)) {
		t.Error("no samples must give NaN")
	}
}

func TestParseInitTrace(t *testing.T) {
	stderr := strings.Join([]string{
		"init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs",
		"init github.com/x/big @8.8 ms, 7.3 ms clock, 1701872 bytes, 21293 allocs",
		"mcp devel",
		"init github.com/x/small @9.1 ms, 0.20 ms clock, 4096 bytes, 12 allocs",
	}, "\n")
	tr, err := parseInitTrace(stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 3 {
		t.Fatalf("parsed %d lines, want 3: %+v", len(tr), tr)
	}
	if tr[1] != (pkgInit{pkg: "github.com/x/big", at: 8.8, clock: 7.3, bytes: 1701872, allocs: 21293}) {
		t.Errorf("line 2 = %+v", tr[1])
	}

	other := []pkgInit{{pkg: "github.com/x/big", at: 8, clock: 6.7, bytes: 1701872, allocs: 21293}}
	s := summarize([][]pkgInit{tr, other})
	if s.count != 3 || s.pkgs[0].pkg != "github.com/x/big" || s.pkgs[0].clock != 7.0 || s.pkgs[0].runs != 2 {
		t.Errorf("summary = %+v", s)
	}
	// Per process: 7.5 ms of init ending at 16.1 ms, and 6.7 ending at 14.7.
	if math.Abs(s.sum-7.1) > 1e-9 || math.Abs(s.end-15.4) > 1e-9 {
		t.Errorf("sum %v end %v, want 7.1 and 15.4", s.sum, s.end)
	}
}

func TestHandshakeStopsTheServer(t *testing.T) {
	ep := testenv.EverythingStdio(t)
	for _, call := range []bool{false, true} {
		d, err := handshake(t.TempDir(), os.Environ(), append([]string{ep.Command}, ep.Args...), call)
		if err != nil {
			t.Fatal(err)
		}
		if d <= 0 || d > 2*time.Minute {
			t.Errorf("handshake (call %v) took %v", call, d)
		}
	}
	for _, p := range descendants(os.Getpid()) {
		if strings.Contains(cmdline(p), "server-everything") {
			t.Errorf("server still running: %d %s", p, cmdline(p))
		}
	}
}

func TestHandshakeFails(t *testing.T) {
	// A server that exits at once never answers initialize.
	if _, err := handshake(t.TempDir(), os.Environ(), []string{"true"}, false); err == nil {
		t.Error("a process that exits at once gave no error")
	}
}

func TestDescendantsAndMemory(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	var below []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if below = descendants(os.Getpid()); len(below) >= 2 {
			break
		}
	}
	if !slices.Contains(below, cmd.Process.Pid) || len(below) < 2 {
		t.Fatalf("descendants = %v, want the shell %d and its sleep", below, cmd.Process.Pid)
	}
	m, err := readMem(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.rss <= 0 || m.hwm < m.rss {
		t.Errorf("memory %+v", m)
	}
}

func TestMultiplexersNoneRunning(t *testing.T) {
	dir := t.TempDir()
	// A lock left by a multiplexer that is gone: nobody holds it.
	if err := os.MkdirAll(filepath.Join(dir, "mcp-0"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp-0", "x.sock.lock"), []byte("999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ms, err := multiplexers(dir)
	if err != nil || len(ms) != 0 {
		t.Errorf("multiplexers = %v, %v; want none", ms, err)
	}
	if err := stopMultiplexers(dir); err != nil {
		t.Errorf("stopping none: %v", err)
	}
}

func TestNpxVerdict(t *testing.T) {
	tests := []struct {
		cmdlines []string
		want     string
	}{
		{nil, "nothing running"},
		{[]string{"node /p/node_modules/.bin/mcp-server-everything stdio"}, "the installed binary, without npx"},
		{[]string{"node /usr/bin/npx -y @modelcontextprotocol/server-everything stdio"}, "through npx"},
		{[]string{"npm exec @modelcontextprotocol/server-everything", "node /usr/lib/node_modules/npm/bin/npx-cli.js -y x"}, "through npx"},
	}
	for _, tt := range tests {
		if got := npxVerdict(tt.cmdlines); got != tt.want {
			t.Errorf("npxVerdict(%q) = %q, want %q", tt.cmdlines, got, tt.want)
		}
	}
}

func TestChildRun(t *testing.T) {
	ok := child{dir: t.TempDir(), env: os.Environ(), want: "hello", argv: []string{"sh", "-c", "echo hello"}}
	s, err := ok.run()
	if err != nil {
		t.Fatal(err)
	}
	if s.wall <= 0 || s.maxRSS <= 0 {
		t.Errorf("sample %+v: want a wall time and a peak RSS", s)
	}
	bad := ok
	bad.want = "bye"
	if _, err := bad.run(); err == nil || !strings.Contains(err.Error(), `not "bye"`) {
		t.Errorf("wrong output: err = %v", err)
	}
	fail := ok
	fail.argv = []string{"sh", "-c", "echo oops >&2; exit 3"}
	if _, err := fail.run(); err == nil || !strings.Contains(err.Error(), "oops") {
		t.Errorf("failing command: err = %v", err)
	}
}
