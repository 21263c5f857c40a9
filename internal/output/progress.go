package output

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/termsafe"
)

// fixedWidth is the width of a line when the terminal does not say its own.
const fixedWidth = 80

// StatusLine is a line of the terminal that says what a call is doing:
// the progress a server reports, or that a server is slow to start. It is
// owned by the call that wrote it last: only that call's end clears it. A
// nil *StatusLine shows nothing.
type StatusLine struct {
	w     io.Writer
	f     *os.File // w, when it is a file (whose width is asked)
	mu    sync.Mutex
	owner *int
}

// NewStatusLine is the status line of w, a terminal's stream written as it
// is (its control sequences are the line's own).
func NewStatusLine(w io.Writer) *StatusLine {
	l := &StatusLine{w: w}
	l.f, _ = w.(*os.File)
	return l
}

// Show puts a call's progress on the line for owner, cut to the
// terminal's width.
func (l *StatusLine) Show(owner *int, target, message string, progress, total float64) {
	if l == nil {
		return
	}
	width := fixedWidth
	if l.f != nil {
		if w := termWidth(l.f); w > 0 {
			width = w
		}
	}
	l.Write(owner, ProgressText(target, message, progress, total, width-1)) // the last column would wrap
}

// Write puts text on the line, in place of what was there, for owner.
func (l *StatusLine) Write(owner *int, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.owner = owner
	fmt.Fprint(l.w, "\r\x1b[K"+text)
}

// Clear erases the line if owner wrote it last; nil clears it whoever did.
func (l *StatusLine) Clear(owner *int) {
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

// Above is w (which writes to the line's terminal) clearing the line
// before each write, so that what a program prints never shares the line
// with a call's progress; the call's next report draws the line again.
func (l *StatusLine) Above(w io.Writer) io.Writer {
	if l == nil {
		return w
	}
	return clearingWriter{line: l, w: w}
}

type clearingWriter struct {
	line *StatusLine
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

// ProgressText is "mcp: SERVER.TOOL: MESSAGE (N of TOTAL)" in at most
// width columns. What the server said is made safe for the terminal and
// put on one line; a character other than ASCII counts two columns, so
// that wide ones cannot make the line wrap.
func ProgressText(target, message string, progress, total float64, width int) string {
	count := progressNumber(progress)
	if total > 0 {
		count += " of " + progressNumber(total)
	}
	text := "mcp: " + target + ": " + count
	if msg := clip.Line(message); msg != "" {
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
