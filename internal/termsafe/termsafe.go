// Package termsafe keeps text that came from a server from driving the
// terminal it is shown on. Everything mcp prints as text goes through a
// Writer; only --json output and the MCP stream of `mcp serve` do not.
//
// Escaped, so that they can be seen but not acted on: the C0 control
// characters but newline and tab (ESC becomes \x1b, so no colour, title,
// clipboard or cursor sequence reaches the terminal), DEL, the C1 control
// characters, the Unicode bidirectional formatting characters (which can
// make text read in another order than it is), and bytes that are not
// UTF-8. The escapes are JSON's where they can be (\u202e), so JSON text
// stays valid JSON with the same values.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Writer passes text on to w with the escapes above. Each Write is taken
// as whole: a UTF-8 sequence cut between two writes shows as escaped bytes.
type Writer struct{ w io.Writer }

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) when all of it was
// written.
func (s *Writer) Write(p []byte) (int, error) {
	if firstUnsafe(p) < 0 {
		return s.w.Write(p)
	}
	if _, err := s.w.Write(escaped(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// String is s with the escapes above.
func String(s string) string { return string(escaped([]byte(s))) }

// escaped is p with the escapes above: p itself when it needs none.
func escaped(p []byte) []byte {
	i := firstUnsafe(p)
	if i < 0 {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 16)
	b.Write(p[:i])
	escape(&b, p[i:])
	return []byte(b.String())
}

// firstUnsafe is the index of the first byte that starts something to
// escape, or -1.
func firstUnsafe(p []byte) int {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

func escape(b *strings.Builder, p []byte) {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c) {
				fmt.Fprintf(b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, c)
		case unsafeRune(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.Write(p[i : i+size])
		}
		i += size
	}
}

func unsafeASCII(c byte) bool { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f }

// unsafeRune: C1 controls and bidirectional formatting characters.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
