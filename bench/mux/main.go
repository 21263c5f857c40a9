//go:build linux

// Command mux measures what the multiplexer buys an `mcp call`, side by
// side with the alternatives, on one machine in one run:
//
//   - warm: `mcp call everything.echo` with the multiplexer up and the server
//     connected, against mcporter's call through its keep-alive daemon, and
//     `mcp version` (a bare process start) and a direct call
//     (MCP_NO_MUX=1) for context, with the package inits every mcp process
//     pays (GODEBUG=inittrace=1);
//   - cold: `mcp call` with no multiplexer running against the server's own
//     spawn and initialize, for `node …` and for `npx -y …` in the recipe;
//   - scale: the multiplexer's memory with 10 upstream servers of 1,000
//     tools each, connected by `mcp list`.
//
// Every figure comes from child processes it runs itself: wall time from
// start to reaping, peak RSS from wait4. It prints a Markdown table.
// run.sh installs what it needs and builds the binaries:
//
//	bash bench/mux/run.sh [--catalog FILE | --no-catalog] [--runs 100] [--slow-runs 30]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// options are the command line.
type options struct {
	mcp           string // the mcp binary to measure
	dir           string // holds node_modules with mcporter and server-everything
	catalogServer string // the catalogserver binary; with catalog, enables the scale measurement
	catalog       string
	noopBin       string // a Go program that does nothing, built like mcp
	runs          int    // samples of the cheap measurements
	slowRuns      int    // samples of those that start node
	keep          bool
	baselineMcp   string // another build of mcp, measured warm beside mcp
	baselineName  string // what the baseline is, for the report
	only          string // "tabs": take only the tabs measurement; "windows": only runWindows
	// The Windows measurement (--only windows): the Wine loader, mcp and a
	// no-op program built for Windows, and the contacts server for each.
	wine, winMcp, winNoop, winServer, server string
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		os.Exit(2)
	}
	// The report is printed once everything the run started is stopped
	// and removed, so that a reader who stops early leaves nothing behind.
	var out bytes.Buffer
	if err := run(o, &out, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "muxbench:", err)
		os.Exit(1)
	}
	_, _ = out.WriteTo(os.Stdout)
}

// parseFlags reads the command line; what is wrong with it, it also says
// on stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("muxbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.mcp, "mcp", "", "the mcp binary to measure")
	fs.StringVar(&o.dir, "dir", ".", "directory whose node_modules holds mcporter and server-everything (npm ci)")
	fs.StringVar(&o.catalogServer, "catalogserver", "", "the catalogserver binary (scale measurement)")
	fs.StringVar(&o.catalog, "catalog", "", "catalog file (JSON lines) the catalog servers grow their tools from (scale measurement)")
	fs.StringVar(&o.noopBin, "noop", "", "a Go program that does nothing, built like mcp (./bench/mux/noop): the floor under process start")
	fs.IntVar(&o.runs, "runs", 100, "samples of each warm measurement and of mcp version")
	fs.IntVar(&o.slowRuns, "slow-runs", 30, "samples of each measurement that starts a server, and of mcporter")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (recipes, logs of the multiplexers)")
	fs.StringVar(&o.baselineMcp, "baseline-mcp", "", "another build of mcp, measured warm beside --mcp in the same loop")
	fs.StringVar(&o.baselineName, "baseline-name", "", "what the baseline is (a revision), for the report")
	fs.StringVar(&o.only, "only", "", `"tabs": only the warm calls of two terminal tabs taking turns; "windows": only Linux beside Windows under Wine`)
	fs.StringVar(&o.wine, "wine", "", "the Wine loader (wine64), for --only windows")
	fs.StringVar(&o.winMcp, "win-mcp", "", "mcp built for windows/amd64, for --only windows")
	fs.StringVar(&o.winNoop, "win-noop", "", "the no-op program built for windows/amd64, for --only windows")
	fs.StringVar(&o.winServer, "win-server", "", "the example's contacts server built for windows/amd64, for --only windows")
	fs.StringVar(&o.server, "server", "", "the example's contacts server built for this system, for --only windows")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.mcp == "" || o.runs < 1 || o.slowRuns < 1:
		err = errors.New("--mcp is required, and --runs and --slow-runs must be at least 1")
	case (o.catalog == "") != (o.catalogServer == ""):
		err = errors.New("--catalog and --catalogserver go together")
	case o.only != "" && o.only != "tabs" && o.only != "windows":
		err = fmt.Errorf("--only takes tabs or windows, not %q", o.only)
	case o.baselineName != "" && o.baselineMcp == "":
		err = errors.New("--baseline-name names the --baseline-mcp binary, which is missing")
	}
	if err != nil {
		fmt.Fprintln(stderr, "muxbench:", err)
	}
	return o, err
}

// bench is one run of every measurement.
type bench struct {
	options
	work    string // recipes, configuration, caches
	sockDir string // TMPDIR of every child: where the multiplexers listen
	env     []string
	baseEnv []string // the baseline build's: its own cache, configuration and state
	log     io.Writer
	res     results
}

func run(o options, stdout, stderr io.Writer) (err error) {
	for _, p := range []*string{&o.mcp, &o.dir, &o.catalogServer, &o.catalog, &o.noopBin, &o.baselineMcp, &o.winMcp, &o.winNoop, &o.winServer, &o.server} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	if o.only == "windows" {
		return runWindows(o, stdout, stderr)
	}
	if err := installed(o.dir); err != nil {
		return err
	}
	b := &bench{options: o, log: stderr}
	b.res.loadStart = loadAvg()
	if b.work, err = os.MkdirTemp("", "muxbench-"); err != nil {
		return err
	}
	var once sync.Once
	cleanup := func() (err error) {
		once.Do(func() {
			if b.sockDir != "" {
				err = stopMultiplexers(b.sockDir)
			}
			if b.env != nil {
				err = errors.Join(err, b.stopMcporter())
			}
			if o.keep {
				fmt.Fprintln(stderr, "muxbench: work directory kept:", b.work)
				return
			}
			os.RemoveAll(b.work)
			if b.sockDir != "" {
				os.RemoveAll(b.sockDir)
			}
		})
		return err
	}
	defer func() { err = errors.Join(err, cleanup()) }()
	if b.sockDir, err = socketDir(b.work); err != nil {
		return err
	}
	env, err := environ(b.work, b.sockDir)
	if err != nil {
		return err
	}
	b.env = env
	// Interrupted, it still stops the multiplexers and mcporter's daemon,
	// which would otherwise outlive it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; ok {
			fmt.Fprintln(stderr, "muxbench: interrupted; stopping what it started")
			if err := cleanup(); err != nil {
				fmt.Fprintln(stderr, "muxbench:", err)
			}
			os.Exit(130)
		}
	}()
	if err := b.measureAll(); err != nil {
		return err
	}
	report(stdout, &b.res, o)
	return nil
}

// measureAll takes every measurement in turn.
func (b *bench) measureAll() error {
	if err := b.setupBaseline(); err != nil {
		return err
	}
	if err := b.prepare(); err != nil {
		return err
	}
	steps := []struct {
		name string
		f    func() error
	}{
		{"package inits", b.inits},
		{"warm calls", b.warm},
		{"two terminal tabs", b.tabs},
		{"cold calls", b.cold},
		{"10 servers, 10,000 tools", b.scale},
	}
	if b.only == "tabs" {
		steps = steps[2:3]
	}
	for _, s := range steps {
		fmt.Fprintf(b.log, "muxbench: %s… (load %s)\n", s.name, loadAvg())
		if err := s.f(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	b.res.loadEnd = loadAvg()
	if m, err := readMem(os.Getpid()); err == nil {
		b.res.spawnerHWM = m.hwm
	}
	return nil
}

// Paths of the work directory.
func (b *bench) everythingRecipe() string { return filepath.Join(b.work, "everything") }
func (b *bench) npxRecipe() string        { return filepath.Join(b.work, "npx") }
func (b *bench) catalogRecipe() string    { return filepath.Join(b.work, "catalog") }
func (b *bench) mcporterDir() string      { return filepath.Join(b.work, "mcporter") }
func (b *bench) everythingJS() string {
	return filepath.Join(b.dir, "node_modules", filepath.FromSlash(everythingPkg), "dist", "index.js")
}

// nodeArgv and npxArgv are the two ways the recipes start the server.
func (b *bench) nodeArgv() []string { return []string{"node", b.everythingJS(), "stdio"} }
func npxArgv() []string             { return []string{"npx", "-y", everythingPkg, "stdio"} }

// prepare writes the recipes and mcporter's configuration, and notes the
// versions of what is measured.
func (b *bench) prepare() error {
	na := b.nodeArgv()
	node := server{Command: na[0], Args: na[1:]}
	if err := writeRecipe(b.everythingRecipe(), map[string]server{"everything": node}, []string{"echo", "trigger-long-running-operation"}); err != nil {
		return err
	}
	// npx runs where node_modules holds the package, as a project would.
	xa := npxArgv()
	npx := server{Command: xa[0], Args: xa[1:], Cwd: b.dir}
	if err := writeRecipe(b.npxRecipe(), map[string]server{"everything": npx}, []string{"echo"}); err != nil {
		return err
	}
	if err := writeMcporter(b.mcporterDir(), "everything", node); err != nil {
		return err
	}
	if b.catalog != "" {
		if err := catalogRecipe(b.catalogRecipe(), b.catalogServer, b.catalog); err != nil {
			return err
		}
	}
	recipes := []string{b.everythingRecipe(), b.npxRecipe()}
	if b.catalog != "" {
		recipes = append(recipes, b.catalogRecipe())
	}
	if err := trustRecipes(b.mcp, b.env, recipes); err != nil {
		return err
	}
	if b.baselineMcp != "" {
		if err := trustRecipes(b.baselineMcp, b.baseEnv, recipes); err != nil {
			return err
		}
	}
	v := child{dir: b.work, env: b.env, argv: []string{b.mcp, "version"}}
	out, _, err := v.output()
	if err != nil {
		return fmt.Errorf("mcp version: %v", err)
	}
	b.res.mcpVersion = strings.TrimSpace(out)
	if c := b.res.cmp; c != nil {
		c.cur.version = b.res.mcpVersion
		v := child{dir: b.work, env: b.baseEnv, argv: []string{b.baselineMcp, "version"}}
		out, _, err := v.output()
		if err != nil {
			return fmt.Errorf("the baseline's mcp version: %v", err)
		}
		c.base.version = strings.TrimSpace(out)
	}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		b.res.node = strings.TrimSpace(string(out))
	}
	if out, _, err := b.mcporter("--version").output(); err == nil {
		b.res.mcporter = strings.TrimSpace(out)
	}
	return nil
}
