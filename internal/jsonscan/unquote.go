package jsonscan

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote is the string lit, a JSON string with its quotes, as
// encoding/json decodes it: escapes read, a surrogate that is not half of
// a pair and each byte that is not UTF-8 read as U+FFFD. ok is false when
// lit is not a JSON string.
func Unquote(lit []byte) (s string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	in := lit[1 : len(lit)-1]
	r := plain(in)
	if r == len(in) {
		return string(in), true
	}
	b := make([]byte, 0, len(in)+utf8.UTFMax)
	b = append(b, in[:r]...)
	for r < len(in) {
		switch c := in[r]; {
		case c == '\\':
			var n int
			if b, n = unescape(b, in[r:]); n == 0 {
				return "", false
			}
			r += n
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(in[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return string(b), true
}

// plain is the length of the start of in that decodes as it is.
func plain(in []byte) int {
	r := 0
	for r < len(in) {
		c := in[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(in[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	return r
}

// unescape appends to b what the escape at the start of in stands for,
// and says how many bytes of in it took (0 when it is not an escape).
func unescape(b, in []byte) ([]byte, int) {
	if len(in) < 2 {
		return b, 0
	}
	if c, ok := escapes[in[1]]; ok {
		return append(b, c), 2
	}
	if in[1] != 'u' {
		return b, 0
	}
	rr := getu4(in)
	switch {
	case rr < 0:
		return b, 0
	case !utf16.IsSurrogate(rr):
		return utf8.AppendRune(b, rr), 6
	}
	if dec := utf16.DecodeRune(rr, getu4(in[6:])); dec != unicode.ReplacementChar {
		return utf8.AppendRune(b, dec), 12
	}
	return utf8.AppendRune(b, unicode.ReplacementChar), 6
}

// escapes are the bytes JSON's one-letter escapes stand for.
var escapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// getu4 is the rune of the \uXXXX at the start of s, or -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
