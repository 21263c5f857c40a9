// Package clip shortens text for one line of output without splitting a
// UTF-8 character.
package clip

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Runes returns s when it has at most n runes, and otherwise its first
// n-1 runes followed by Ellipsis, so the result never has more than n.
// Invalid UTF-8 in s counts one rune per byte and is kept as it is.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, seen := 0, 0
	for i < len(s) && seen < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		seen++
	}
	return s[:i] + Ellipsis
}

// Line is s on one line: every run of white space, newlines included,
// becomes one space, and leading and trailing space is dropped.
func Line(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Error is err's message on one line, with a deadline said as "timed out"
// rather than Go's "context deadline exceeded".
func Error(err error) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = strings.Replace(msg, context.DeadlineExceeded.Error(), "timed out", 1)
	}
	return Line(msg)
}

// Lines is the longest start of b that has at most max bytes and ends at a
// line boundary, with the number of lines it holds; when no line ends
// within max bytes, it is cut before max without splitting a character,
// and lines is 0.
func Lines(b []byte, max int) (cut []byte, lines int) {
	if max < 0 {
		max = 0
	}
	if len(b) <= max {
		return b, bytes.Count(b, []byte("\n"))
	}
	if i := bytes.LastIndexByte(b[:max], '\n'); i >= 0 {
		return b[:i+1], bytes.Count(b[:i+1], []byte("\n"))
	}
	cut = b[:max]
	for len(cut) > 0 && !utf8.RuneStart(b[len(cut)]) {
		cut = cut[:len(cut)-1]
	}
	return cut, 0
}
