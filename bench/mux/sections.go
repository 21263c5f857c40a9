//go:build linux

package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// results are every figure of a run and the evidence behind them.
type results struct {
	loadStart, loadEnd         string
	mcpVersion, node, mcporter string

	inits initSummary

	warmMcp, version, noop, trueCmd, warmMcporter, direct series
	coldMcp, coldInit, coldOneShot, coldNpxMcp, npxInit   series

	muxUpstream   []string // command lines of the warm multiplexer's children
	npxUpstream   []string // command lines the npx recipe's multiplexer started
	mcporterState string   // mcporter's daemon status after its calls

	scale *scaleResult
	cmp   *comparison // with --baseline-mcp
	tabs  tabsResult

	// spawnerHWM is the benchmark's own peak RSS, the floor under every
	// child's ru_maxrss.
	spawnerHWM int64
}

// comparison is a baseline build of mcp measured warm beside the current
// one, in the same loop.
type comparison struct {
	name      string // what the baseline is (--baseline-name), or ""
	base, cur buildResult
}

// buildResult is what one build of mcp did in the warm measurements.
type buildResult struct {
	version       string  // what its `mcp version` printed
	call          *series // warm calls; the current build's are results.warmMcp
	start, search series  // `mcp --version`; warm `mcp search echo`
	cold          *series // cold calls; the current build's are results.coldMcp
	muxPID        int
	upstream      []string // command lines of its multiplexer's children
}

type scaleResult struct {
	listCold             sample
	listWarm             series
	servers, tools       int
	afterCold, afterWarm memStatus
	upstreamRSS          int64 // sum over the catalog servers
}

// echo is the call every warm and cold measurement makes.
var echoArgs = []string{"call", "everything.echo", "message=hi"}

const echoWant = "Echo: hi"

func (b *bench) mcpCall(recipe string, extraEnv ...string) child {
	return callChild(b.mcp, append(slices.Clone(b.env), extraEnv...), recipe)
}

// callChild is the echo call of the mcp binary bin in recipe.
func callChild(bin string, env []string, recipe string) child {
	return child{dir: recipe, env: env, want: echoWant, argv: append([]string{bin}, echoArgs...)}
}

func (b *bench) mcporter(args ...string) child {
	bin := filepath.Join(b.dir, "node_modules", ".bin", "mcporter")
	return child{dir: b.mcporterDir(), env: b.env, argv: append([]string{bin}, args...)}
}

// inits runs `mcp version` with GODEBUG=inittrace=1 and sums up what each
// package's init costs every mcp process.
func (b *bench) inits() error {
	var traces [][]pkgInit
	c := child{dir: b.work, env: append(slices.Clone(b.env), "GODEBUG=inittrace=1"), argv: []string{b.mcp, "version"}}
	for range min(b.runs, 30) {
		_, stderr, err := c.output()
		if err != nil {
			return fmt.Errorf("mcp version: %v", err)
		}
		tr, err := parseInitTrace(stderr)
		if err != nil {
			return err
		}
		if len(tr) == 0 {
			return errors.New("GODEBUG=inittrace=1 mcp version printed no init lines")
		}
		traces = append(traces, tr)
	}
	b.res.inits = summarize(traces)
	return nil
}

// mcporterStatus is what `mcporter daemon status` says about its daemon
// and the everything server.
type mcporterStatus struct {
	pid      int
	lastUsed string
	text     string
}

var (
	mcporterPID  = regexp.MustCompile(`Daemon pid (\d+)`)
	mcporterUsed = regexp.MustCompile(`everything: connected \(last used ([^)]+)\)`)
)

func (b *bench) mcporterStatus() (mcporterStatus, error) {
	out, stderr, err := b.mcporter("daemon", "status").output()
	if err != nil {
		return mcporterStatus{}, fmt.Errorf("mcporter daemon status: %v: %s", err, tail(stderr))
	}
	pid, used := mcporterPID.FindStringSubmatch(out), mcporterUsed.FindStringSubmatch(out)
	if pid == nil || used == nil {
		return mcporterStatus{}, fmt.Errorf("mcporter daemon status does not show everything connected: %s", tail(out))
	}
	var s mcporterStatus
	fmt.Sscan(pid[1], &s.pid)
	s.lastUsed, s.text = used[1], strings.TrimSpace(out)
	return s, nil
}

func (b *bench) stopMcporter() error {
	if _, stderr, err := b.mcporter("daemon", "stop").output(); err != nil {
		return fmt.Errorf("mcporter daemon stop: %v: %s", err, tail(stderr))
	}
	return nil
}

func measure(s *series, c child) error {
	x, err := c.run()
	if err != nil {
		return err
	}
	s.add(x)
	return nil
}

func measureInit(s *series, dir string, env, argv []string, call bool) error {
	d, err := handshake(dir, env, argv, call)
	if err != nil {
		return err
	}
	s.add(sample{wall: d})
	return nil
}

// cold times a call that has to start the multiplexer and the server
// against the server's own start, for both forms of the recipe, and a
// direct call for context. Each cold call follows a stop of every
// multiplexer.
func (b *bench) cold() error {
	node, npx := b.mcpCall(b.everythingRecipe()), b.mcpCall(b.npxRecipe())
	direct := b.mcpCall(b.everythingRecipe(), "MCP_NO_MUX=1")
	lastPID := 0
	for i := range b.slowRuns {
		if err := stopMultiplexers(b.sockDir); err != nil {
			return err
		}
		if err := measure(&b.res.coldMcp, node); err != nil {
			return err
		}
		m, err := theMultiplexer(b.sockDir)
		if err != nil {
			return err
		}
		if m.pid == lastPID {
			return fmt.Errorf("the cold call found multiplexer %d still running", m.pid)
		}
		lastPID = m.pid
		if err := b.coldBaseline(); err != nil {
			return err
		}
		if err := measureInit(&b.res.coldInit, b.everythingRecipe(), b.env, b.nodeArgv(), false); err != nil {
			return err
		}
		if err := measureInit(&b.res.coldOneShot, b.everythingRecipe(), b.env, b.nodeArgv(), true); err != nil {
			return err
		}

		if err := stopMultiplexers(b.sockDir); err != nil {
			return err
		}
		if err := measure(&b.res.coldNpxMcp, npx); err != nil {
			return err
		}
		if i == 0 {
			if m, err = theMultiplexer(b.sockDir); err != nil {
				return err
			}
			for _, p := range descendants(m.pid) {
				b.res.npxUpstream = append(b.res.npxUpstream, cmdline(p))
			}
		}
		if err := measureInit(&b.res.npxInit, b.dir, b.env, npxArgv(), false); err != nil {
			return err
		}
		if err := stopMultiplexers(b.sockDir); err != nil {
			return err
		}
		if err := measure(&b.res.direct, direct); err != nil {
			return err
		}
		if ms, err := multiplexers(b.sockDir); err != nil || len(ms) != 0 {
			return fmt.Errorf("MCP_NO_MUX=1 left %d multiplexers running (%v)", len(ms), err)
		}
	}
	return stopMultiplexers(b.sockDir)
}

// coldBaseline times the baseline build's cold call, with --baseline-mcp,
// right after the current build's: the same recipe, with the baseline's
// own cache and state.
func (b *bench) coldBaseline() error {
	if b.res.cmp == nil {
		return nil
	}
	if err := stopMultiplexers(b.sockDir); err != nil {
		return err
	}
	return measure(b.res.cmp.base.cold, callChild(b.baselineMcp, b.baseEnv, b.everythingRecipe()))
}

// scale connects catalogServers servers of catalogTools tools each through
// one multiplexer with `mcp list` and reads the multiplexer's memory.
func (b *bench) scale() error {
	if b.catalog == "" {
		return nil
	}
	if err := stopMultiplexers(b.sockDir); err != nil {
		return err
	}
	sr := &scaleResult{}
	list := child{dir: b.catalogRecipe(), env: b.env, want: "cat0", argv: []string{b.mcp, "list"}}
	list.check = func(out string) error {
		servers, tools := 0, 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var id string
			var n int
			if _, err := fmt.Sscanf(line, "%s %d tools", &id, &n); err != nil {
				return fmt.Errorf("unexpected line %q", line)
			}
			servers, tools = servers+1, tools+n
		}
		if servers != catalogServers || tools != catalogServers*catalogTools {
			return fmt.Errorf("listed %d servers with %d tools, want %d with %d", servers, tools, catalogServers, catalogServers*catalogTools)
		}
		sr.servers, sr.tools = servers, tools
		return nil
	}
	var err error
	if sr.listCold, err = list.run(); err != nil {
		return err
	}
	m, err := theMultiplexer(b.sockDir)
	if err != nil {
		return err
	}
	if sr.afterCold, err = readMem(m.pid); err != nil {
		return err
	}
	for range min(b.runs, 10) {
		if err := measure(&sr.listWarm, list); err != nil {
			return err
		}
	}
	if sr.afterWarm, err = readMem(m.pid); err != nil {
		return err
	}
	up := descendants(m.pid)
	if len(up) != catalogServers {
		return fmt.Errorf("the multiplexer runs %d servers, want %d", len(up), catalogServers)
	}
	for _, p := range up {
		if mem, err := readMem(p); err == nil {
			sr.upstreamRSS += mem.rss
		}
	}
	b.res.scale = sr
	return stopMultiplexers(b.sockDir)
}
