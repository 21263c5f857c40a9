//go:build linux

package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
)

// Targets the figures are compared against.
const (
	targetWarmMs      = 6.0
	targetWarmRatio   = 100.0
	targetCLIRSSMiB   = 20.0
	targetColdRatio   = 1.15
	targetNpxRatio    = 0.5
	targetMuxHWMMiB   = 80.0
	targetStartRatio  = 1.05 // warm call ÷ `mcp --version`: little beyond the process start
	inaccurateSamples = 30   // fewer samples make a p95 little more than the maximum
)

// report prints every figure as Markdown.
func report(w io.Writer, r *results, o options) {
	fmt.Fprintf(w, "## mcp multiplexer benchmark\n\n")
	fmt.Fprintf(w, "%s · node %s · mcporter %s · %s/%s, %d CPUs\n\n", r.mcpVersion, r.node, r.mcporter, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(w, "Load average (1, 5, 15 min) at start: %s; at end: %s.\n\n", r.loadStart, r.loadEnd)

	t := newTable(w, r.spawnerHWM)
	if o.only == "tabs" {
		tabsRows(t, &r.tabs)
		t.notes(len(r.tabs.one.samples) < inaccurateSamples)
		return
	}
	callRows(t, r)
	tabsRows(t, &r.tabs)
	scaleRows(t, r.scale)
	t.notes(len(r.warmMcp.samples) < inaccurateSamples || len(r.warmMcporter.samples) < inaccurateSamples)
	if r.cmp != nil {
		reportComparison(w, r.cmp, r.spawnerHWM)
	}
	reportInits(w, r.inits)
	reportEvidence(w, r)
}

// table writes the rows of one Markdown table of figures.
type table struct {
	w       io.Writer
	floor   float64 // MiB: the benchmark's own peak RSS, the floor under a child's
	floored bool    // some figure was at the floor
}

func newTable(w io.Writer, spawnerHWM int64) *table {
	fmt.Fprintln(w, "| measurement | median | p95 | N | CPU, median | peak RSS, median (max) | target | met |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---|")
	return &table{w: w, floor: mib(spawnerHWM)}
}

// row is one series: its wall time, CPU time and peak RSS.
func (t *table) row(name string, s *series, target string, met string) {
	rss, cpu := "—", "—"
	if len(s.samples) > 0 && s.samples[0].maxRSS > 0 {
		cpu = ms(median(s.cpus()))
		rss = fmt.Sprintf("%.1f MiB (%.1f)", median(s.rss()), percentile(s.rss(), 100))
		if median(s.rss()) <= t.floor {
			rss, t.floored = fmt.Sprintf("≤ %.1f MiB *", t.floor), true
		}
	}
	fmt.Fprintf(t.w, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", name, ms(median(s.walls())), ms(percentile(s.walls(), 95)), len(s.samples), cpu, rss, target, met)
}

// ratio is num over den: of the medians and of the p95s of wall time;
// ok, if set, judges the ratio of the medians.
func (t *table) ratio(name string, num, den *series, target string, ok func(float64) bool) {
	m := median(num.walls()) / median(den.walls())
	p := percentile(num.walls(), 95) / percentile(den.walls(), 95)
	met := ""
	if ok != nil {
		met = yes(ok(m))
	}
	fmt.Fprintf(t.w, "| %s | %s | %s (of p95s) | | | | %s | %s |\n", name, times(m), times(p), target, met)
}

// ratioCPU is ratio with the ratio of the CPU medians as well.
func (t *table) ratioCPU(name string, num, den *series, target string, ok func(float64) bool) {
	m, p, c := ratios(num, den)
	met := ""
	if ok != nil {
		met = yes(ok(m))
	}
	fmt.Fprintf(t.w, "| %s | %s | %s (of p95s) | | %s | | %s | %s |\n", name, ratioText(m), ratioText(p), ratioText(c), target, met)
}

// ratios are num over den: of the medians and of the p95s of wall time,
// and of the medians of CPU time (NaN where either has none).
func ratios(num, den *series) (med, p95, cpu float64) {
	med = median(num.walls()) / median(den.walls())
	p95 = percentile(num.walls(), 95) / percentile(den.walls(), 95)
	cpu = median(num.cpus()) / median(den.cpus())
	return med, p95, cpu
}

// ratioText is a ratio as the report writes it; "—" where there is none
// (no samples, or a zero below).
func ratioText(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return times(x)
}

// notes explains the figures at the floor, and warns when few samples
// make a p95 little more than the maximum.
func (t *table) notes(few bool) {
	if t.floored {
		fmt.Fprintf(t.w, "\n\\* A child's ru_maxrss is at least the peak RSS of the process that started it (%.1f MiB here): "+
			"Go starts children with vfork, and the kernel counts the shared address space's peak against the child. "+
			"A figure above that is the child's own.\n", t.floor)
	}
	if few {
		fmt.Fprintf(t.w, "\nWith fewer than %d samples a p95 is close to the maximum.\n", inaccurateSamples)
	}
}

// callRows are the warm and cold calls and their comparisons.
func callRows(t *table, r *results) {
	warmMed := median(r.warmMcp.walls())
	warmRSS := percentile(r.warmMcp.rss(), 100)
	t.row("warm `mcp call everything.echo message=hi` (multiplexer up, server connected)", &r.warmMcp,
		fmt.Sprintf("median ≤ %g ms; RSS ≤ %g MiB", targetWarmMs, targetCLIRSSMiB),
		yes(warmMed <= targetWarmMs)+"; RSS "+yes(warmRSS <= targetCLIRSSMiB))
	t.row("warm `mcporter call everything.echo message=hi` (keep-alive daemon up, server connected)", &r.warmMcporter, "", "")
	t.ratio("mcporter ÷ mcp, warm", &r.warmMcporter, &r.warmMcp, fmt.Sprintf("≥ %g×", targetWarmRatio), func(x float64) bool { return x >= targetWarmRatio })
	t.row("`mcp version` (process start, no I/O)", &r.version, "", "")
	if len(r.noop.samples) > 0 {
		t.row("a Go program that does nothing, built like mcp (floor of a Go process)", &r.noop, "", "")
	}
	t.row("`true` (floor of any process here)", &r.trueCmd, "", "")
	t.row("`MCP_NO_MUX=1 mcp call …` (direct: starts the server itself)", &r.direct, "", "")
	t.row("cold `mcp call …` (starts the multiplexer and the server; recipe runs `node …`)", &r.coldMcp, "", "")
	t.row("server's own spawn + initialize (`node …`)", &r.coldInit, "", "")
	t.ratio("cold mcp ÷ spawn + initialize", &r.coldMcp, &r.coldInit, fmt.Sprintf("≤ %g×", targetColdRatio), func(x float64) bool { return x <= targetColdRatio })
	t.row("one-shot client: spawn + initialize + tools/list + tools/call (`node …`)", &r.coldOneShot, "", "")
	t.ratio("cold mcp ÷ one-shot client", &r.coldMcp, &r.coldOneShot, "", nil)
	t.row("cold `mcp call …`, recipe runs `npx -y "+everythingPkg+" stdio`", &r.coldNpxMcp, "", "")
	t.row("`npx -y "+everythingPkg+" stdio` spawn + initialize", &r.npxInit, "", "")
	t.ratio("cold mcp (npx recipe) ÷ npx spawn + initialize", &r.coldNpxMcp, &r.npxInit, fmt.Sprintf("≤ %g×", targetNpxRatio), func(x float64) bool { return x <= targetNpxRatio })
}

// scaleRows are the memory rows, or one row saying they were not measured.
func scaleRows(t *table, s *scaleResult) {
	w := t.w
	if s == nil {
		fmt.Fprintln(w, "| multiplexer memory, 10 servers × 1,000 tools | not measured: no --catalog | | | | | | |")
		return
	}
	name := fmt.Sprintf("%d servers × %d tools", catalogServers, catalogTools)
	fmt.Fprintf(w, "| cold `mcp list` (%s: starts the multiplexer, connects all) | %s | | 1 | %s | %.1f MiB | | |\n", name, ms(float64(s.listCold.wall.Microseconds())/1000), ms(float64(s.listCold.cpu.Microseconds())/1000), mib(s.listCold.maxRSS))
	t.row("warm `mcp list` ("+name+")", &s.listWarm, "", "")
	fmt.Fprintf(w, "| multiplexer VmHWM after the cold `mcp list` (%d tools) | %.1f MiB | | | | | ≤ %g MiB | %s |\n", s.tools, mib(s.afterCold.hwm), targetMuxHWMMiB, yes(mib(s.afterCold.hwm) <= targetMuxHWMMiB))
	fmt.Fprintf(w, "| multiplexer VmRSS after the cold `mcp list` | %.1f MiB | | | | | | |\n", mib(s.afterCold.rss))
	fmt.Fprintf(w, "| multiplexer VmHWM / VmRSS after %d warm lists | %.1f / %.1f MiB | | | | | ≤ %g MiB | %s |\n", len(s.listWarm.samples), mib(s.afterWarm.hwm), mib(s.afterWarm.rss), targetMuxHWMMiB, yes(mib(s.afterWarm.hwm) <= targetMuxHWMMiB))
	fmt.Fprintf(w, "| the %d catalog servers' VmRSS, summed (for context) | %.1f MiB | | | | | | |\n", catalogServers, mib(s.upstreamRSS))
}

// reportComparison is the baseline build against the current one: both
// warm, from the same loop.
func reportComparison(w io.Writer, c *comparison, spawnerHWM int64) {
	name := ""
	if c.name != "" {
		name = " (" + c.name + ")"
	}
	fmt.Fprintf(w, "\n### The baseline build against the current one\n\n")
	fmt.Fprintf(w, "Baseline%s: `%s`, multiplexer pid %d; current: `%s`, multiplexer pid %d. "+
		"Each build has its own multiplexer and server for the same recipe, both warm before the loop and the same after it; "+
		"every round runs each build once per measurement, the first of them alternating.\n\n",
		name, c.base.version, c.base.muxPID, c.cur.version, c.cur.muxPID)
	t := newTable(w, spawnerHWM)
	builds := []struct {
		label string
		r     *buildResult
	}{{"baseline", &c.base}, {"current", &c.cur}}
	for _, b := range builds {
		t.row("warm `mcp call everything.echo message=hi`, "+b.label, b.r.call, "", "")
	}
	t.ratioCPU("current ÷ baseline, warm call", c.cur.call, c.base.call, "", nil)
	for _, b := range builds {
		t.row("`mcp --version`, "+b.label, &b.r.start, "", "")
	}
	t.ratioCPU("current ÷ baseline, `mcp --version`", &c.cur.start, &c.base.start, "", nil)
	for _, b := range builds {
		t.ratioCPU("warm call ÷ `mcp --version`, "+b.label, b.r.call, &b.r.start,
			fmt.Sprintf("≤ %g×", targetStartRatio), func(x float64) bool { return x <= targetStartRatio })
	}
	for _, b := range builds {
		t.row("warm `mcp search echo`, "+b.label, &b.r.search, "", "")
	}
	t.ratioCPU("current ÷ baseline, warm search", &c.cur.search, &c.base.search, "", nil)
	for _, b := range builds {
		t.ratioCPU("warm search ÷ `mcp --version`, "+b.label, &b.r.search, &b.r.start, "", nil)
	}
	for _, b := range builds {
		if b.r.cold != nil && len(b.r.cold.samples) > 0 {
			t.row("cold `mcp call everything.echo message=hi` (starts the multiplexer and the server), "+b.label, b.r.cold, "", "")
		}
	}
	if c.base.cold != nil && c.cur.cold != nil && len(c.base.cold.samples) > 0 {
		t.ratio("current ÷ baseline, cold call", c.cur.cold, c.base.cold, "", nil)
	}
	t.notes(len(c.cur.call.samples) < inaccurateSamples)
}

func reportInits(w io.Writer, in initSummary) {
	fmt.Fprintf(w, "\n### Package inits every mcp process pays (GODEBUG=inittrace=1 mcp version, %d processes)\n\n", inTotal(in))
	fmt.Fprintf(w, "%d packages run an init; together a median %s of clock, the last one done %s after start.\n\n", in.count, ms(in.sum), ms(in.end))
	fmt.Fprintln(w, "| package | clock, median | bytes | allocs |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, p := range in.pkgs[:min(len(in.pkgs), 10)] {
		fmt.Fprintf(w, "| %s | %s | %s | %d |\n", p.pkg, ms(p.clock), kib(p.bytes), p.allocs)
	}
}

func reportEvidence(w io.Writer, r *results) {
	fmt.Fprintln(w, "\n### Evidence")
	fmt.Fprintf(w, "\n- The warm multiplexer's server (same pid before and after the calls): `%s`\n", strings.Join(r.muxUpstream, "`, `"))
	if c := r.cmp; c != nil {
		fmt.Fprintf(w, "- The baseline's warm multiplexer's server (same pid before and after the calls): `%s`\n", strings.Join(c.base.upstream, "`, `"))
	}
	fmt.Fprintf(w, "- What the multiplexer started for the `npx -y` recipe: `%s` (%s)\n", strings.Join(r.npxUpstream, "`, `"), npxVerdict(r.npxUpstream))
	fmt.Fprintf(w, "- mcporter's daemon after its calls (same daemon and server pid before and after, last-used time advanced):\n\n```\n%s\n```\n", r.mcporterState)
}

func inTotal(s initSummary) int {
	if len(s.pkgs) == 0 {
		return 0
	}
	return s.pkgs[0].total
}

// npxVerdict says whether the multiplexer went through npx.
func npxVerdict(cmdlines []string) string {
	if len(cmdlines) == 0 {
		return "nothing running"
	}
	for _, c := range cmdlines {
		for _, f := range strings.Fields(c) {
			if strings.HasSuffix(f, "/npx") || f == "npx" || strings.HasSuffix(f, "npx-cli.js") || strings.HasSuffix(f, "npm-cli.js") {
				return "through npx"
			}
		}
	}
	return "the installed binary, without npx"
}

func ms(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x < 10:
		return fmt.Sprintf("%.2f ms", x)
	case x < 100:
		return fmt.Sprintf("%.1f ms", x)
	}
	return fmt.Sprintf("%.0f ms", x)
}

func times(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.2f×", x)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func kib(b int64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", mib(b))
	}
	return fmt.Sprintf("%.0f KiB", float64(b)/1024)
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}
