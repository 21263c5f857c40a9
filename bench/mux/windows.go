//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
)

// platform is one side of the Windows measurement: mcp, a no-op Go
// program and the contacts server built for it, and how to run them.
type platform struct {
	name           string
	mcp, noop, srv string
	wrap           []string // before every argv: the Wine loader, or nothing
	env            []string
	recipe         string // the recipe's directory, a unix path
	recipeArg      string // the same as this mcp names it
	stderr         *os.File
	warm, direct   series
	version, floor series
	muxPID         string
}

func (p *platform) child(want string, argv ...string) child {
	return child{dir: p.recipe, env: p.env, want: want, argv: append(slices.Clone(p.wrap), argv...), stderrTo: p.stderr}
}

func (p *platform) call(extraEnv ...string) child {
	c := p.child(contactsWant, p.mcp, "--recipe", p.recipeArg, "call", "contacts.search_contacts", "query=ada")
	c.env = append(slices.Clone(c.env), extraEnv...)
	return c
}

const contactsWant = "Ada Lovelace"

// winPath is the path Wine gives unix path p: on drive C: when it is in
// the prefix's drive_c, else on its Z: drive, which is /.
func winPath(p string) string {
	drive, rest := "Z:", p
	if c := filepath.Join(os.Getenv("WINEPREFIX"), "drive_c"); os.Getenv("WINEPREFIX") != "" && strings.HasPrefix(p, c+"/") {
		drive, rest = "C:", strings.TrimPrefix(p, c)
	}
	return drive + strings.ReplaceAll(rest, "/", `\`)
}

// runWindows measures warm and direct calls of mcp on Linux and of mcp's
// Windows build under Wine, in one loop, each against the example's
// contacts server built for its system, with the floors under a process
// start on each (a no-op Go program; `mcp version`).
func runWindows(o options, stdout, stderr io.Writer) error {
	if o.wine == "" || o.winMcp == "" || o.winNoop == "" || o.winServer == "" || o.server == "" || o.noopBin == "" {
		return errors.New("--only windows needs --wine, --win-mcp, --win-noop, --win-server, --server and --noop")
	}
	// Wine makes a file's access list from its unix mode: private
	// directories are private only under this umask.
	syscall.Umask(0o077)
	work, err := os.MkdirTemp("", "muxbench-win-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	linux, win, err := windowsPlatforms(o, work)
	if err != nil {
		return err
	}
	defer win.stderr.Close()
	sides := []*platform{linux, win}
	for _, p := range sides {
		defer p.stop(stderr)
	}
	for _, p := range sides {
		if err := p.prepare(); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	fmt.Fprintf(stderr, "muxbench: %d warm calls and process starts, %d direct calls, on each side\n", o.runs, o.slowRuns)
	type step struct {
		s *series
		c child
	}
	for i := range o.runs {
		for _, p := range sides {
			steps := []step{{&p.warm, p.call()}, {&p.version, p.child("", p.mcp, "version")}, {&p.floor, p.child("", p.noop)}}
			if i < o.slowRuns {
				steps = append(steps, step{&p.direct, p.call("MCP_NO_MUX=1")})
			}
			for _, st := range steps {
				if err := measure(st.s, st.c); err != nil {
					return fmt.Errorf("%s: %w", p.name, err)
				}
			}
		}
	}
	for _, p := range sides {
		if pid, err := p.status(); err != nil || pid != p.muxPID {
			return fmt.Errorf("%s: the multiplexer was %s before the loop and %s after it (%v): a warm call started another", p.name, p.muxPID, pid, err)
		}
	}
	windowsReport(stdout, linux, win, o)
	return nil
}

// windowsPlatforms sets out both sides: their recipes (the contacts
// server as the example has it, the binary built for each system) and
// environments of their own.
func windowsPlatforms(o options, work string) (*platform, *platform, error) {
	sockDir, err := socketDir(work)
	if err != nil {
		return nil, nil, err
	}
	env, err := environ(filepath.Join(work, "linux"), sockDir)
	if err != nil {
		return nil, nil, err
	}
	linux := &platform{name: "Linux", mcp: o.mcp, noop: o.noopBin, srv: o.server, env: env}
	winEnv := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	// The Windows side's recipe and temporary directory are on the
	// prefix's drive C:, where wine.sh put its binaries.
	winWork := filepath.Join(filepath.Dir(filepath.Dir(o.winMcp)), "work")
	tmp := filepath.Join(winWork, "temp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, nil, err
	}
	winEnv = append(winEnv, "WINEDEBUG=-all", "TEMP="+winPath(tmp), "TMP="+winPath(tmp))
	// Wine hands a process it starts this process's stderr as its own,
	// whatever handle it was given: a multiplexer would hold a pipe open,
	// so the Windows side writes its stderr to a file.
	errFile, err := os.Create(filepath.Join(work, "wine-stderr"))
	if err != nil {
		return nil, nil, err
	}
	win := &platform{name: "Windows (Wine)", mcp: winPath(o.winMcp), noop: o.winNoop, srv: winPath(o.winServer),
		wrap: []string{o.wine}, env: winEnv, stderr: errFile}
	linux.recipe, linux.recipeArg = filepath.Join(work, "recipe"), filepath.Join(work, "recipe")
	win.recipe = filepath.Join(winWork, "recipe")
	win.recipeArg = winPath(win.recipe)
	for _, p := range []*platform{linux, win} {
		if err := writeContactsRecipe(p.recipe, p.srv); err != nil {
			return nil, nil, err
		}
	}
	return linux, win, nil
}

func writeContactsRecipe(dir, server string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	pkg := map[string]any{"pi": map[string]any{"mcp": map[string]any{"manifests": []string{"mcp.json"},
		"servers": []any{map[string]any{"id": "contacts", "required": true, "tools": map[string]any{"include": []string{"*"}}}}}}}
	if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "mcp.json"), map[string]any{"mcpServers": map[string]any{"contacts": map[string]any{"command": server}}})
}

// prepare trusts the recipe, makes a first call, which starts the
// multiplexer and connects the server, and notes the multiplexer's pid.
func (p *platform) prepare() error {
	trust := p.child("trusted", p.mcp, "trust", p.recipeArg)
	if _, err := trust.run(); err != nil {
		return err
	}
	if _, err := p.call().run(); err != nil {
		return err
	}
	pid, err := p.status()
	p.muxPID = pid
	return err
}

var statusPID = regexp.MustCompile(`(?m)^pid ([0-9]+) .*\n  contacts  connected`)

// status is the pid of the multiplexer serving the recipe, with contacts
// connected, as `mcp daemon status` gives it.
func (p *platform) status() (string, error) {
	c := p.child("", p.mcp, "daemon", "status")
	out, _, err := c.output()
	m := statusPID.FindStringSubmatch(out)
	if err != nil || m == nil {
		return "", fmt.Errorf("daemon status: %v: %q", err, tail(out))
	}
	return m[1], nil
}

func (p *platform) stop(log io.Writer) {
	if _, _, err := p.child("", p.mcp, "daemon", "stop").output(); err != nil {
		fmt.Fprintf(log, "muxbench: %s: daemon stop: %v\n", p.name, err)
	}
}

func windowsReport(w io.Writer, linux, win *platform, o options) {
	fmt.Fprintf(w, "## mcp on Linux and on Windows under Wine\n\n")
	fmt.Fprintf(w, "`mcp call contacts.search_contacts query=ada` against the example's contacts server, built for each system; %d samples of each cheap measurement, %d of each direct call, taken in turn.\n\n", o.runs, o.slowRuns)
	fmt.Fprintln(w, "| measurement | Linux median | Linux p95 | Windows (Wine) median | Windows (Wine) p95 |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	rows := []struct {
		name string
		l, w *series
	}{
		{"warm call (multiplexer up, server connected)", &linux.warm, &win.warm},
		{"direct call (`MCP_NO_MUX=1`: starts the server)", &linux.direct, &win.direct},
		{"`mcp version` (a bare start of mcp)", &linux.version, &win.version},
		{"a Go program that does nothing", &linux.floor, &win.floor},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.name, ms(median(r.l.walls())), ms(percentile(r.l.walls(), 95)),
			ms(median(r.w.walls())), ms(percentile(r.w.walls(), 95)))
	}
	for _, r := range []struct {
		name     string
		num, den func(*platform) *series
	}{
		{"warm ÷ direct", func(p *platform) *series { return &p.warm }, func(p *platform) *series { return &p.direct }},
		{"warm ÷ no-op program", func(p *platform) *series { return &p.warm }, func(p *platform) *series { return &p.floor }},
	} {
		lm, lp, _ := ratios(r.num(linux), r.den(linux))
		wm, wp, _ := ratios(r.num(win), r.den(win))
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.name, times(lm), times(lp), times(wm), times(wp))
	}
	fmt.Fprintf(w, "| warm call − `mcp version` (medians: the call beyond mcp's own start) | %s | | %s | |\n",
		ms(median(linux.warm.walls())-median(linux.version.walls())), ms(median(win.warm.walls())-median(win.version.walls())))
	fmt.Fprintf(w, "\nThe multiplexer's pid was the same before and after the loop on both sides (Linux %s, Wine %s). Under Wine every process start goes through Wine's loader and wineserver, which the no-op row measures: compare the rows within a column, not across.\n", linux.muxPID, win.muxPID)
}
