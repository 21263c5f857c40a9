//go:build linux

package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// tabsResult is what warm calls cost when two terminal tabs, whose
// environments differ only in what terminals set on their own, take turns
// through one multiplexer, beside one terminal alone; and what happened to
// the calls in flight meanwhile.
type tabsResult struct {
	one, tabA, tabB series
	// inFlight counts the long calls of tab A that were running while
	// tab B called, and failed those of them (and of tab B's calls) that
	// did not succeed.
	inFlight, failed int
	// restarts counts the times the multiplexer or its server was found
	// to be another process than before.
	restarts int
	ran      bool
	// firstFailure is what the first failed call said.
	firstFailure string
}

// fail counts a failed call, and keeps what the first one said.
func (r *tabsResult) fail(mu *sync.Mutex, err error) {
	mu.Lock()
	defer mu.Unlock()
	r.failed++
	if r.firstFailure == "" {
		r.firstFailure = err.Error()
	}
}

// terminalVars are what real terminals, tabs and logins set per tab.
func terminalVars(tab string) []string {
	return []string{
		"TERM_SESSION_ID=w0t" + tab + "p0:" + tab, "GNOME_TERMINAL_SCREEN=/org/gnome/Terminal/screen/" + tab,
		"KITTY_WINDOW_ID=" + tab, "WEZTERM_PANE=" + tab, "TMUX_PANE=%" + tab,
		"VSCODE_GIT_IPC_HANDLE=/run/user/vscode-git-" + tab + ".sock", "VSCODE_INJECTION=1",
		"SSH_CONNECTION=10.0.0.1 5000" + tab + " 10.0.0.2 22", "SSH_TTY=/dev/pts/" + tab,
		"TERM=xterm-" + []string{"256color", "kitty"}[len(tab)%2],
	}
}

// withTerminal is env without the terminal's variables, plus tab's.
func withTerminal(env []string, tab string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "TERM" || strings.HasPrefix(k, "TERM_") || strings.HasPrefix(k, "SSH_") ||
			strings.HasPrefix(k, "VSCODE_") || k == "TMUX_PANE" || k == "KITTY_WINDOW_ID" ||
			k == "WEZTERM_PANE" || k == "GNOME_TERMINAL_SCREEN"
	})
	return append(out, terminalVars(tab)...)
}

// tabs takes rounds of warm calls: one terminal's two in a row, then tab
// A's and tab B's, and every tenth round a long call of tab A that is in
// flight while tab B calls. Failures are counted, not fatal: a build that
// evicts one tab's multiplexer for the other's is what it measures.
func (b *bench) tabs() error {
	if err := stopMultiplexers(b.sockDir); err != nil {
		return err
	}
	r := &b.res.tabs
	r.ran = true
	recipe := b.everythingRecipe()
	envA, envB := withTerminal(b.env, "1"), withTerminal(b.env, "2")
	callA, callB := callChild(b.mcp, envA, recipe), callChild(b.mcp, envB, recipe)
	long := child{dir: recipe, env: envA, argv: []string{b.mcp, "call", "everything.trigger-long-running-operation", "duration=1", "steps=2"}}
	if _, err := callA.run(); err != nil {
		return err
	}
	proc, up, err := b.oneMultiplexer()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range b.runs {
		if i%10 == 0 {
			r.inFlight++
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := long.run(); err != nil {
					r.fail(&mu, err)
				}
			}()
		}
		for _, t := range []timed{{&r.one, callA}, {&r.one, callA}, {&r.tabA, callA}, {&r.tabB, callB}} {
			if err := measure(t.s, t.c); err != nil {
				r.fail(&mu, err)
			}
		}
		if p, u, err := b.oneMultiplexer(); err != nil || p != proc || !slices.Equal(u, up) {
			r.restarts++
			proc, up = p, u
		}
	}
	wg.Wait()
	return stopMultiplexers(b.sockDir)
}

// oneMultiplexer is the pid of the one multiplexer running, and its
// server's processes.
func (b *bench) oneMultiplexer() (int, []int, error) {
	ms, err := multiplexers(b.sockDir)
	if err != nil {
		return 0, nil, err
	}
	if len(ms) != 1 {
		return 0, nil, fmt.Errorf("%d multiplexers are running, want 1", len(ms))
	}
	return ms[0].pid, descendants(ms[0].pid), nil
}

// targetTabsRatio is the goal for a tab's warm call over one terminal's.
const targetTabsRatio = 1.1

// tabsRows reports the tabs measurement.
func tabsRows(t *table, r *tabsResult) {
	if !r.ran {
		return
	}
	t.row("warm call, one terminal (every call from tab A)", &r.one, "", "")
	t.row("warm call from tab A, tabs taking turns", &r.tabA, "", "")
	t.row("warm call from tab B, tabs taking turns", &r.tabB, "", "")
	within := func(x float64) bool { return x <= targetTabsRatio }
	t.ratio("tab A ÷ one terminal", &r.tabA, &r.one, fmt.Sprintf("≤ %.1f×", targetTabsRatio), within)
	t.ratio("tab B ÷ one terminal", &r.tabB, &r.one, fmt.Sprintf("≤ %.1f×", targetTabsRatio), within)
	met := "yes"
	if r.failed > 0 || r.restarts > 0 {
		met = "no"
	}
	fmt.Fprintf(t.w, "| calls that failed, of %d long calls of tab A in flight and every timed call; multiplexer or server restarts | %d failed, %d restarts | | | | | 0 | %s |\n",
		r.inFlight, r.failed, r.restarts, met)
	if r.firstFailure != "" {
		fmt.Fprintf(t.w, "\nThe first failed call: %s\n", strings.Join(strings.Fields(r.firstFailure), " "))
	}
}
