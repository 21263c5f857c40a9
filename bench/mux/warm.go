//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// build is one binary of mcp in the warm measurements: the commands it
// runs, where their samples go, and its multiplexer and that multiplexer's
// server once the first call has started them.
type build struct {
	bin                 string
	call, start, search child
	res                 *buildResult
	mux                 muxProc
	up                  []int
}

// builds are the binaries the warm measurements compare: mcp, and with
// --baseline-mcp the baseline after it. Each build keeps its own
// multiplexer, since the socket's key includes the binary's path, size and
// modification time, and its own cache, configuration and state
// directories.
func (b *bench) builds() []*build {
	mk := func(bin string, env []string, res *buildResult) *build {
		recipe := b.everythingRecipe()
		return &build{
			bin:    bin,
			call:   callChild(bin, env, recipe),
			start:  child{dir: b.work, env: env, want: "mcp", argv: []string{bin, "--version"}},
			search: child{dir: recipe, env: env, want: "everything.echo", argv: []string{bin, "search", "echo"}},
			res:    res,
		}
	}
	if b.res.cmp == nil {
		return []*build{mk(b.mcp, b.env, &buildResult{call: &b.res.warmMcp})}
	}
	return []*build{mk(b.mcp, b.env, &b.res.cmp.cur), mk(b.baselineMcp, b.baseEnv, &b.res.cmp.base)}
}

// warm times calls through a multiplexer and through mcporter's daemon,
// each with its server already connected, interleaved so that both see the
// same load. It checks afterwards that neither started its server again.
// With a baseline build, its calls are interleaved with the current
// build's, each through its own multiplexer.
func (b *bench) warm() error {
	if err := stopMultiplexers(b.sockDir); err != nil {
		return err
	}
	builds := b.builds()
	if err := b.startBuilds(builds); err != nil {
		return err
	}
	porter, before, porterUp, err := b.startMcporter()
	if err != nil {
		return err
	}
	if err := b.warmLoop(builds, porter); err != nil {
		return err
	}
	// Neither side may have started its server again.
	if err := b.checkBuilds(builds); err != nil {
		return err
	}
	b.res.muxUpstream = builds[0].res.upstream
	after, err := b.mcporterStatus()
	if err != nil {
		return err
	}
	if after.pid != before.pid || !slices.Equal(descendants(after.pid), porterUp) {
		return fmt.Errorf("mcporter's daemon or its server changed during the warm calls (pid %d → %d)", before.pid, after.pid)
	}
	if after.lastUsed == before.lastUsed {
		return fmt.Errorf("mcporter's daemon was not used by the calls: last used still %s", after.lastUsed)
	}
	b.res.mcporterState = after.text
	return b.stopMcporter()
}

// startBuilds makes a first call with each build, which starts its
// multiplexer and the server (and with a baseline a first search), and
// finds each build's multiplexer and server.
func (b *bench) startBuilds(builds []*build) error {
	for _, bd := range builds {
		if _, err := bd.call.run(); err != nil {
			return err
		}
		if len(builds) > 1 {
			if _, err := bd.search.run(); err != nil {
				return err
			}
		}
	}
	ms, err := b.eachMultiplexer(builds)
	if err != nil {
		return err
	}
	for i, bd := range builds {
		bd.mux, bd.up = ms[i], descendants(ms[i].pid)
		if len(bd.up) == 0 {
			return fmt.Errorf("the multiplexer (pid %d) has no server running after a call", bd.mux.pid)
		}
		bd.res.muxPID = bd.mux.pid
	}
	return nil
}

// checkBuilds makes sure that every build's multiplexer and server are
// the ones that were running before the loop, and notes the server's
// command line.
func (b *bench) checkBuilds(builds []*build) error {
	ms, err := b.eachMultiplexer(builds)
	if err != nil {
		return err
	}
	for i, bd := range builds {
		if ms[i].pid != bd.mux.pid || !slices.Equal(descendants(bd.mux.pid), bd.up) {
			return fmt.Errorf("the multiplexer or its server changed during the warm calls (pid %d → %d)", bd.mux.pid, ms[i].pid)
		}
		for _, p := range bd.up {
			bd.res.upstream = append(bd.res.upstream, cmdline(p))
		}
	}
	return nil
}

// eachMultiplexer is the multiplexer of each build, in order: as many are
// running as there are builds, each run by its own binary.
func (b *bench) eachMultiplexer(builds []*build) ([]muxProc, error) {
	ms, err := multiplexers(b.sockDir)
	if err != nil {
		return nil, err
	}
	if len(ms) != len(builds) {
		return nil, fmt.Errorf("%d multiplexers are running, want %d", len(ms), len(builds))
	}
	out := make([]muxProc, len(builds))
	for i, bd := range builds {
		if out[i], err = multiplexerOf(ms, bd.bin); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// multiplexerOf is the one multiplexer of ms that bin runs.
func multiplexerOf(ms []muxProc, bin string) (muxProc, error) {
	want, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return muxProc{}, err
	}
	var found []muxProc
	for _, m := range ms {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", m.pid)); err == nil && exe == want {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return muxProc{}, fmt.Errorf("%d multiplexers run %s, want 1", len(found), bin)
	}
	return found[0], nil
}

// startMcporter starts mcporter's daemon and its server with a first call,
// and returns the call, the daemon's status and the daemon's children.
func (b *bench) startMcporter() (child, mcporterStatus, []int, error) {
	porter := b.mcporter(echoArgs...)
	porter.want = echoWant
	if _, stderr, err := b.mcporter("daemon", "start").output(); err != nil {
		return porter, mcporterStatus{}, nil, fmt.Errorf("mcporter daemon start: %v: %s", err, tail(stderr))
	}
	if _, err := porter.run(); err != nil {
		return porter, mcporterStatus{}, nil, err
	}
	before, err := b.mcporterStatus()
	if err != nil {
		return porter, before, nil, err
	}
	up := descendants(before.pid)
	if len(up) == 0 {
		return porter, before, nil, fmt.Errorf("mcporter's daemon (pid %d) has no server running after a call", before.pid)
	}
	return porter, before, up, nil
}

// timed is a command and the series its samples go to.
type timed struct {
	s *series
	c child
}

// warmLoop takes the warm samples, runs rounds of the cheap ones and
// slowRuns of mcporter's calls, interleaved.
func (b *bench) warmLoop(builds []*build, porter child) error {
	floors := []timed{
		{&b.res.version, child{dir: b.work, env: b.env, want: "mcp", argv: []string{b.mcp, "version"}}},
		{&b.res.trueCmd, child{dir: b.work, env: b.env, argv: []string{"true"}}},
	}
	if b.noopBin != "" {
		floors = append(floors, timed{&b.res.noop, child{dir: b.work, env: b.env, argv: []string{b.noopBin}}})
	}
	for i := range max(b.runs, b.slowRuns) {
		if i < b.runs {
			for _, t := range warmRound(i, builds, floors) {
				if err := measure(t.s, t.c); err != nil {
					return err
				}
			}
		}
		if i < b.slowRuns {
			if err := measure(&b.res.warmMcporter, porter); err != nil {
				return err
			}
		}
	}
	return nil
}

// warmRound is round i of the cheap warm samples: every build's call,
// then the floors, and with a baseline every build's `mcp --version` and
// search. Where the builds take turns, the first one changes from round to
// round, so that neither always runs right after the other.
func warmRound(i int, builds []*build, floors []timed) []timed {
	var round []timed
	order := turnOrder(i, len(builds))
	for _, j := range order {
		round = append(round, timed{builds[j].res.call, builds[j].call})
	}
	round = append(round, floors...)
	if len(builds) > 1 {
		for _, j := range order {
			round = append(round, timed{&builds[j].res.start, builds[j].start})
		}
		for _, j := range order {
			round = append(round, timed{&builds[j].res.search, builds[j].search})
		}
	}
	return round
}

// turnOrder is the order of n things in round i: 0, 1, …, n-1 turned
// left by i.
func turnOrder(i, n int) []int {
	out := make([]int, n)
	for j := range out {
		out[j] = (i + j) % n
	}
	return out
}

// setupBaseline prepares the baseline build's side, with --baseline-mcp:
// its own cache, configuration and state directories, and the figures it
// shares with the current build.
func (b *bench) setupBaseline() error {
	if b.baselineMcp == "" {
		return nil
	}
	cur, err := os.Stat(b.mcp)
	if err != nil {
		return err
	}
	base, err := os.Stat(b.baselineMcp)
	if err != nil {
		return err
	}
	if os.SameFile(cur, base) {
		return fmt.Errorf("--baseline-mcp %s is the same file as --mcp: copy it, or build the baseline into another file", b.baselineMcp)
	}
	if b.baseEnv, err = withXDG(b.env, filepath.Join(b.work, "xdg-baseline")); err != nil {
		return err
	}
	b.res.cmp = &comparison{name: b.baselineName, cur: buildResult{call: &b.res.warmMcp, cold: &b.res.coldMcp}, base: buildResult{call: &series{}, cold: &series{}}}
	return nil
}
