// Package clip shortens text for one line of output without splitting a
// UTF-8 character.
package clip

import (
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
