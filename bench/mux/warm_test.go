//go:build linux

package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"--mcp", "a/mcp", "--runs", "5", "--baseline-mcp", "b/mcp", "--baseline-name", "main at abc1234"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.mcp != "a/mcp" || o.runs != 5 || o.slowRuns != 30 || o.baselineMcp != "b/mcp" || o.baselineName != "main at abc1234" {
		t.Errorf("options = %+v", o)
	}
	if o, err := parseFlags([]string{"--mcp", "a/mcp"}, io.Discard); err != nil || o.baselineMcp != "" {
		t.Errorf("without a baseline: %+v, %v", o, err)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "5"}, "--mcp is required"},
		{[]string{"--mcp", "m", "--slow-runs", "0"}, "at least 1"},
		{[]string{"--mcp", "m", "--catalog", "c.jsonl"}, "go together"},
		{[]string{"--mcp", "m", "--baseline-name", "main"}, "--baseline-mcp"},
		{[]string{"--mcp", "m", "extra"}, `unexpected argument "extra"`},
		{[]string{"--mcp", "m", "--baseline", "main"}, "not defined"},
	}
	for _, tt := range bad {
		var stderr bytes.Buffer
		_, err := parseFlags(tt.args, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("parseFlags(%q) = %v, stderr %q; want an error with %q", tt.args, err, stderr.String(), tt.want)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

// seriesOf is a series of samples with these wall and CPU times (ms).
func seriesOf(wall, cpu []float64) *series {
	var s series
	for i := range wall {
		x := sample{wall: time.Duration(wall[i] * float64(time.Millisecond))}
		if cpu != nil {
			x.cpu = time.Duration(cpu[i] * float64(time.Millisecond))
		}
		s.add(x)
	}
	return &s
}

func TestRatios(t *testing.T) {
	num := seriesOf([]float64{12, 10, 11, 30}, []float64{6, 5, 5, 7})
	den := seriesOf([]float64{10, 9, 11, 15}, []float64{4, 5, 5, 3})
	m, p, c := ratios(num, den)
	// Medians 11.5 / 10.5, p95s 30 / 15, CPU medians 5.5 / 4.5.
	if math.Abs(m-11.5/10.5) > 1e-9 || p != 2 || math.Abs(c-5.5/4.5) > 1e-9 {
		t.Errorf("ratios = %v, %v, %v", m, p, c)
	}
	if _, _, c := ratios(num, seriesOf([]float64{1}, nil)); !math.IsInf(c, 1) || ratioText(c) != "—" {
		t.Errorf("CPU ratio over no CPU time = %v (%s), want +Inf (—)", c, ratioText(c))
	}
	if m, _, _ := ratios(num, &series{}); ratioText(m) != "—" {
		t.Errorf("ratio over no samples = %s, want —", ratioText(m))
	}
	for x, want := range map[float64]string{1.0449: "1.04×", 0.987: "0.99×", 20.4: "20×", math.NaN(): "—"} {
		if got := ratioText(x); got != want {
			t.Errorf("ratioText(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestTurnOrder(t *testing.T) {
	for _, tt := range []struct {
		i, n int
		want []int
	}{{0, 1, []int{0}}, {7, 1, []int{0}}, {0, 2, []int{0, 1}}, {1, 2, []int{1, 0}}, {4, 2, []int{0, 1}}, {2, 3, []int{2, 0, 1}}} {
		if got := turnOrder(tt.i, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("turnOrder(%d, %d) = %v, want %v", tt.i, tt.n, got, tt.want)
		}
	}
}

func TestWarmRound(t *testing.T) {
	mk := func(name string) *build {
		c := func(verb string) child { return child{argv: []string{name, verb}} }
		return &build{bin: name, call: c("call"), start: c("--version"), search: c("search"), res: &buildResult{call: &series{}}}
	}
	floors := []timed{{&series{}, child{argv: []string{"mcp", "version"}}}, {&series{}, child{argv: []string{"true"}}}}
	names := func(ts []timed) string {
		var out []string
		for _, x := range ts {
			out = append(out, strings.Join(x.c.argv, " "))
		}
		return strings.Join(out, ", ")
	}
	// One build: the call and the floors, as without a baseline.
	if got, want := names(warmRound(3, []*build{mk("cur")}, floors)), "cur call, mcp version, true"; got != want {
		t.Errorf("one build: %s, want %s", got, want)
	}
	cur, base := mk("cur"), mk("base")
	even := warmRound(0, []*build{cur, base}, floors)
	if got, want := names(even), "cur call, base call, mcp version, true, cur --version, base --version, cur search, base search"; got != want {
		t.Errorf("round 0: %s, want %s", got, want)
	}
	if got, want := names(warmRound(1, []*build{cur, base}, floors)), "base call, cur call, mcp version, true, base --version, cur --version, base search, cur search"; got != want {
		t.Errorf("round 1: %s, want %s", got, want)
	}
	// Each sample goes to its own build's series.
	if even[0].s != cur.res.call || even[1].s != base.res.call || even[4].s != &cur.res.start || even[7].s != &base.res.search {
		t.Error("a sample goes to the wrong series")
	}
}

func TestMultiplexerOf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self := muxProc{socket: "self.sock", pid: os.Getpid()}
	other := muxProc{socket: "other.sock", pid: os.Getppid()}
	m, err := multiplexerOf([]muxProc{other, self}, exe)
	if err != nil || m != self {
		t.Errorf("multiplexerOf = %v, %v; want %v", m, err, self)
	}
	// Through a symbolic link to the binary, it is the same binary.
	link := filepath.Join(t.TempDir(), "mcp")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	if m, err := multiplexerOf([]muxProc{self}, link); err != nil || m != self {
		t.Errorf("through a link: %v, %v", m, err)
	}
	if _, err := multiplexerOf([]muxProc{self, self}, exe); err == nil {
		t.Error("two multiplexers of one binary: no error")
	}
	if _, err := multiplexerOf([]muxProc{other}, exe); err == nil {
		t.Error("no multiplexer of the binary: no error")
	}
}

func TestWithXDG(t *testing.T) {
	root := t.TempDir()
	env, err := withXDG([]string{"PATH=/bin", "XDG_CACHE_HOME=/old", "TMPDIR=/t", "XDG_DATA_HOME=/old"}, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=/bin", "TMPDIR=/t",
		"XDG_CACHE_HOME=" + filepath.Join(root, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_DATA_HOME=" + filepath.Join(root, "data")}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
	if st, err := os.Stat(filepath.Join(root, "state")); err != nil || !st.IsDir() {
		t.Errorf("state directory: %v", err)
	}
}

func TestReportComparison(t *testing.T) {
	r := &results{}
	r.warmMcp = *seriesOf([]float64{10, 10, 10}, []float64{4, 4, 4})
	r.coldMcp = *seriesOf([]float64{440, 450, 460}, []float64{30, 30, 30})
	var plain bytes.Buffer
	report(&plain, r, options{})
	if strings.Contains(plain.String(), "baseline") {
		t.Errorf("without a baseline the report mentions one:\n%s", plain.String())
	}
	r.cmp = &comparison{name: "main at abc1234",
		base: buildResult{version: "mcp 1.0", call: seriesOf([]float64{12, 12, 12}, []float64{5, 5, 5}), start: *seriesOf([]float64{10, 10, 10}, []float64{4, 4, 4}), upstream: []string{"node base"}},
		cur:  buildResult{version: "mcp 1.1", call: &r.warmMcp, start: *seriesOf([]float64{10, 10, 10}, []float64{4, 4, 4})}}
	r.cmp.cur.cold, r.cmp.base.cold = &r.coldMcp, seriesOf([]float64{500, 500, 500}, []float64{30, 30, 30})
	var out bytes.Buffer
	report(&out, r, options{})
	for _, want := range []string{
		"Baseline (main at abc1234): `mcp 1.0`",
		"| current ÷ baseline, cold call | 0.90× |",
		"| current ÷ baseline, warm call | 0.83× | 0.83× (of p95s) | | 0.80× | |",
		"| warm call ÷ `mcp --version`, baseline | 1.20× | 1.20× (of p95s) | | 1.25× | | ≤ 1.05× | **no** |",
		"| warm call ÷ `mcp --version`, current | 1.00× | 1.00× (of p95s) | | 1.00× | | ≤ 1.05× | yes |",
		"| warm `mcp search echo`, current | — | — | 0 |",
		"The baseline's warm multiplexer's server (same pid before and after the calls): `node base`",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.HasPrefix(out.String(), plain.String()[:strings.Index(plain.String(), "\n### ")]) {
		t.Error("with a baseline, the main table changed")
	}
}
