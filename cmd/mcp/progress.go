package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/termsafe"
	"github.com/mcpsh/mcp/mux/upstream"
)

// progress says whether to tell a person at a terminal that a server is
// slow to start: never with --json, NO_COLOR, or when stderr is not a
// terminal.
func (a *app) progress() bool {
	if a.globals == nil || a.globals.JSON || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return a.stderrIsTerminal()
}

// progressDelay is how long a cold connect may take before it is shown.
const progressDelay = 300 * time.Millisecond

// connecting shows, after progressDelay, that the invocation waits for a
// server to start, on the status line; done clears the line. Of servers
// that start together, the one shown last has the line.
func (a *app) connecting(server string) (done func()) {
	line := a.statusLine()
	owner := new(int)
	var mu sync.Mutex
	over := false
	t := time.AfterFunc(progressDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			line.write(owner, "mcp: starting "+server+"…")
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		over = true
		mu.Unlock()
		line.clear(owner)
	}
}

// touchKey marks the function that restarts --timeout's clock in the
// command's context.
type touchKey struct{}

// callProgress is ctx for one tool call of target (SERVER.TOOL): it asks
// the server for progress, and each report restarts --timeout's clock and,
// on a terminal, shows on the progress line. done clears the line; call it
// before anything is printed of the call.
func (a *app) callProgress(ctx context.Context, target string) (_ context.Context, done func()) {
	touch, _ := ctx.Value(touchKey{}).(func())
	line := a.progressLine()
	owner := new(int)
	h := *upstream.HooksOf(ctx)
	h.OnProgress = func(p upstream.Progress) {
		if touch != nil {
			touch()
		}
		line.show(owner, target, p)
	}
	return upstream.WithCallHooks(ctx, &h), func() { line.clear(owner) }
}

// progressLine is the one stderr line that shows the latest progress of a
// call, overwritten in place; nil (showing nothing) when progress is not
// shown.
func (a *app) progressLine() *statusLine {
	if !a.progress() {
		return nil
	}
	return a.statusLine()
}

// statusLine is the line of stderr that progress and server starts share.
func (a *app) statusLine() *statusLine {
	a.lineOnce.Do(func() {
		a.line = &statusLine{w: a.errOut}
		a.line.f, _ = a.errOut.(*os.File)
	})
	return a.line
}

// fixedWidth is the width of a line when the terminal does not say its own.
const fixedWidth = 80

// statusLine is a line of the terminal that says what a call is doing. It
// is owned by the call that wrote it last: only that call's end clears it.
type statusLine struct {
	w     io.Writer
	f     *os.File // w, when it is a file (whose width is asked)
	mu    sync.Mutex
	owner *int
}

func (l *statusLine) show(owner *int, target string, p upstream.Progress) {
	if l == nil {
		return
	}
	width := fixedWidth
	if l.f != nil {
		if w := termWidth(l.f); w > 0 {
			width = w
		}
	}
	l.write(owner, progressText(target, p, width-1)) // the last column would wrap
}

// write puts text on the line, in place of what was there, for owner.
func (l *statusLine) write(owner *int, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.owner = owner
	fmt.Fprint(l.w, "\r\x1b[K"+text)
}

// clear erases the line if owner wrote it last; nil clears it whoever did.
func (l *statusLine) clear(owner *int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner != nil && (owner == nil || owner == l.owner) {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.owner = nil
	}
}

// aboveProgress is w (which writes to stderr) clearing the progress line
// before each write, so that what a program prints never shares the line
// with a call's progress; the call's next report draws the line again.
func (a *app) aboveProgress(w io.Writer) io.Writer {
	line := a.progressLine()
	if line == nil {
		return w
	}
	return clearingWriter{line: line, w: w}
}

type clearingWriter struct {
	line *statusLine
	w    io.Writer
}

func (c clearingWriter) Write(p []byte) (int, error) {
	c.line.mu.Lock()
	defer c.line.mu.Unlock()
	if c.line.owner != nil {
		fmt.Fprint(c.line.w, "\r\x1b[K")
		c.line.owner = nil
	}
	return c.w.Write(p)
}

// progressText is "mcp: SERVER.TOOL: MESSAGE (N of TOTAL)" in at most
// width columns. What the server said is made safe for the terminal and
// put on one line; a character other than ASCII counts two columns, so
// that wide ones cannot make the line wrap.
func progressText(target string, p upstream.Progress, width int) string {
	count := progressNumber(p.Progress)
	if p.Total > 0 {
		count += " of " + progressNumber(p.Total)
	}
	text := "mcp: " + target + ": " + count
	if msg := clip.Line(p.Message); msg != "" {
		text = "mcp: " + target + ": " + msg + " (" + count + ")"
	}
	text = termsafe.String(text)
	cols := 0
	for i, r := range text {
		w := 1
		if r >= utf8.RuneSelf {
			w = 2
		}
		if cols+w > width {
			return text[:i]
		}
		cols += w
	}
	return text
}

// progressNumber is a progress value as a person reads it: at most two
// decimals, so that 5.000000000000001 (a count raised above the last one
// by a tiny step) shows as 5.
func progressNumber(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}
