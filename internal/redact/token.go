package redact

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// span is where an occurrence of a secret lies in a text: t[start:end].
type span struct{ start, end int }

// wholeTokens is the occurrences of spans that stand as whole tokens, in
// order of start. An occurrence does not continue a word: on each side,
// unless the secret's own edge there is not a letter or digit, the
// neighbouring character is not a letter or digit either, or ends an
// escape (%3D, \n, \u0022, \x1b) that a URL, JSON or a quoted string put
// before it. An occurrence that overlaps or touches another on a side
// counts as bounded on that side when the other reaches a boundary beyond
// it, so that secrets run together are masked as one.
func wholeTokens(t string, spans []span) []span {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	n := len(spans)
	left := make([]bool, n)
	// reach is the furthest end of the occurrences bounded on the left
	// that start before the current one.
	reach := -1
	for i := 0; i < n; {
		j := i
		for j < n && spans[j].start == spans[i].start {
			j++
		}
		for k := i; k < j; k++ {
			left[k] = boundedBefore(t, spans[k].start) || reach >= spans[k].start
		}
		for k := i; k < j; k++ {
			if left[k] {
				reach = max(reach, spans[k].end)
			}
		}
		i = j
	}
	// Then the same from the right, in order of end.
	byEnd := make([]int, n)
	for i := range byEnd {
		byEnd[i] = i
	}
	slices.SortFunc(byEnd, func(a, b int) int { return cmp.Compare(spans[b].end, spans[a].end) })
	right := make([]bool, n)
	from := len(t) + 1 // the nearest start of those bounded on the right that end after
	for i := 0; i < n; {
		j := i
		for j < n && spans[byEnd[j]].end == spans[byEnd[i]].end {
			j++
		}
		for _, k := range byEnd[i:j] {
			right[k] = boundedAfter(t, spans[k].end) || from <= spans[k].end
		}
		for _, k := range byEnd[i:j] {
			if right[k] {
				from = min(from, spans[k].start)
			}
		}
		i = j
	}
	var out []span
	for i, sp := range spans {
		if left[i] && right[i] {
			out = append(out, sp)
		}
	}
	return out
}

// boundedBefore says an occurrence starting at i does not continue a word
// to its left.
func boundedBefore(t string, i int) bool {
	if i == 0 {
		return true
	}
	first, _ := utf8.DecodeRuneInString(t[i:])
	prev, _ := utf8.DecodeLastRuneInString(t[:i])
	return !isWord(first) || !isWord(prev) || endsEscape(t[:i])
}

// boundedAfter says an occurrence ending at i does not run into a word to
// its right.
func boundedAfter(t string, i int) bool {
	if i == len(t) {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(t[:i])
	next, _ := utf8.DecodeRuneInString(t[i:])
	return !isWord(last) || !isWord(next)
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// endsEscape says t ends with an escape whose last character is a letter or
// digit: a URL's %XX, or a backslash escape of JSON or a quoted string
// (\n, \uXXXX, \UXXXXXXXX, \xXX, \NNN).
func endsEscape(t string) bool {
	hexTail := func(n int) bool {
		if len(t) < n {
			return false
		}
		for i := len(t) - n; i < len(t); i++ {
			if !isHex(t[i]) {
				return false
			}
		}
		return true
	}
	at := func(back int, c byte) bool { return len(t) >= back && t[len(t)-back] == c }
	switch {
	case at(3, '%') && hexTail(2),
		at(2, '\\'),
		at(6, '\\') && at(5, 'u') && hexTail(4),
		at(10, '\\') && at(9, 'U') && hexTail(8),
		at(4, '\\') && at(3, 'x') && hexTail(2),
		at(4, '\\') && hexTail(3):
		return true
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
