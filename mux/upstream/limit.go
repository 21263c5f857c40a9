package upstream

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/mcpsh/mcp/internal/jsondepth"
)

// ErrMessageTooLarge says a single message from a server was larger than
// Options.MaxMessageBytes. Over stdio and SSE it ends the connection (the
// stream cannot be resynchronised); over streamable HTTP only that request
// fails.
var ErrMessageTooLarge = errors.New("message from server exceeds the size limit")

// ErrMessageTooDeep says a message from a server nests arrays and objects
// deeper than any JSON decoder here reads (maxMessageDepth). It cannot be
// read, so it is treated as ErrMessageTooLarge is: over stdio and SSE it
// ends the connection rather than leave the request waiting for an answer
// that was dropped.
var ErrMessageTooDeep = errors.New("message from server is nested too deeply to be read")

// maxMessageDepth is encoding/json's own limit on nesting.
const maxMessageDepth = 10000

// DefaultMaxMessageBytes bounds one message from a server unless
// Options.MaxMessageBytes says otherwise.
const DefaultMaxMessageBytes = 64 << 20

// lineLimitReader passes r through, failing with ErrMessageTooLarge once one
// line (the bytes between two newlines) grows past max, and with
// ErrMessageTooDeep once a line nests deeper than maxMessageDepth.
// Newline-delimited JSON-RPC and SSE frames are both bounded this way.
// done, if set, is called once with the error that ended the stream
// (io.EOF included).
type lineLimitReader struct {
	r     io.Reader
	max   int64
	n     int64 // bytes since the last newline
	depth depthGauge
	done  func(error)
	once  sync.Once
}

func (l *lineLimitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		chunk := p[:n]
		if first := bytes.IndexByte(chunk, '\n'); first < 0 {
			l.n += int64(n)
		} else {
			if l.n+int64(first) > l.max {
				l.n = l.max + 1
			} else {
				l.n = int64(n - 1 - bytes.LastIndexByte(chunk, '\n'))
			}
		}
		switch {
		case l.n > l.max:
			err = ErrMessageTooLarge
			n = 0
		case l.depth.feed(chunk) > maxMessageDepth:
			err = ErrMessageTooDeep
			n = 0
		}
	}
	if err != nil && l.done != nil {
		l.once.Do(func() { l.done(err) })
	}
	return n, err
}

// depthGauge follows the nesting of JSON arrays and objects line by line,
// outside strings, across reads.
type depthGauge struct {
	scan    jsondepth.Scanner
	deepest int
}

// feed takes the next bytes and returns the deepest nesting of the line
// they end in (or of the line still open).
func (g *depthGauge) feed(b []byte) int {
	for _, c := range b {
		if c == '\n' {
			*g = depthGauge{}
			continue
		}
		if g.scan.Step(c) {
			g.deepest = max(g.deepest, g.scan.Depth())
			if g.deepest > maxMessageDepth {
				return g.deepest
			}
		}
	}
	return g.deepest
}

// limitBody bounds a whole HTTP response body.
type limitBody struct {
	io.ReadCloser
	left int64
	trip func(error)
}

func (b *limitBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		if b.trip != nil {
			b.trip(ErrMessageTooLarge)
		}
		return 0, ErrMessageTooLarge
	}
	return n, err
}

// lineLimitBody bounds each line of a streamed (SSE) HTTP response body.
type lineLimitBody struct {
	lineLimitReader
	c io.Closer
}

func (b *lineLimitBody) Close() error { return b.c.Close() }

// tailBuffer keeps the last lines written to it, each cut to a bounded
// length, so that a chatty stderr costs a fixed amount of memory.
type tailBuffer struct {
	mu     sync.Mutex
	lines  []string // ring of at most tailLines
	next   int
	full   bool
	cur    []byte
	curCut bool
}

const (
	tailLines    = 20
	tailLineSize = 1024
)

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		part := rest
		if i >= 0 {
			part = rest[:i]
		}
		if room := tailLineSize - len(t.cur); len(part) > room {
			t.cur = append(t.cur, part[:max(room, 0)]...)
			t.curCut = true
		} else {
			t.cur = append(t.cur, part...)
		}
		if i < 0 {
			break
		}
		t.push()
		rest = rest[i+1:]
	}
	return len(p), nil
}

// push ends the current line. Callers hold mu.
func (t *tailBuffer) push() {
	line := strings.TrimRight(string(t.cur), "\r")
	if t.curCut {
		line += " …"
	}
	if t.lines == nil {
		t.lines = make([]string, tailLines)
	}
	t.lines[t.next] = line
	t.next = (t.next + 1) % tailLines
	t.full = t.full || t.next == 0
	t.cur, t.curCut = t.cur[:0], false
}

// String returns the kept lines, oldest first, including an unfinished last
// line.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	if t.full {
		out = append(out, t.lines[t.next:]...)
	}
	if t.lines != nil {
		out = append(out, t.lines[:t.next]...)
	}
	if len(t.cur) > 0 {
		out = append(out, strings.TrimRight(string(t.cur), "\r"))
	}
	return strings.Join(out, "\n")
}
