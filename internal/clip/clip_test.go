package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"héllo wörld", 5, "héll…"},
		{"日本語テキスト", 4, "日本語…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	} {
		if got := Runes(c.s, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line(" a\n b\t\tc  "); got != "a b c" {
		t.Errorf("Line = %q", got)
	}
}

func FuzzRunes(f *testing.F) {
	f.Add("héllo wörld", 5)
	f.Add("\xff\xfeabc", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n > 1<<16 || n < -1 {
			return
		}
		got := Runes(s, n)
		if n > 0 && utf8.RuneCountInString(got) > n {
			t.Errorf("Runes(%q, %d) = %q: more than %d runes", s, n, got, n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("Runes(%q, %d) = %q: split a character", s, n, got)
		}
	})
}

func TestLines(t *testing.T) {
	for _, c := range []struct {
		s     string
		max   int
		want  string
		lines int
	}{
		{"a\nbb\nccc\n", 20, "a\nbb\nccc\n", 3},
		{"a\nbb\nccc\n", 6, "a\nbb\n", 2},
		{"a\nbb\nccc\n", 5, "a\nbb\n", 2},
		{"a\nbb\nccc\n", 4, "a\n", 1},
		{"abcdef", 3, "abc", 0},
		{"héllo", 2, "h", 0},
		{"abc", 0, "", 0},
	} {
		got, n := Lines([]byte(c.s), c.max)
		if string(got) != c.want || n != c.lines {
			t.Errorf("Lines(%q, %d) = %q, %d; want %q, %d", c.s, c.max, got, n, c.want, c.lines)
		}
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nbb\nccc", 4)
	f.Add("héllo\nwörld", 3)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max > 1<<16 || max < 0 {
			return
		}
		got, n := Lines([]byte(s), max)
		if len(got) > max && len(got) != len(s) {
			t.Errorf("Lines(%q, %d) = %q: longer than %d", s, max, got, max)
		}
		if !strings.HasPrefix(s, string(got)) {
			t.Errorf("Lines(%q, %d) = %q: not a start of it", s, max, got)
		}
		if n != strings.Count(string(got), "\n") && n != 0 {
			t.Errorf("Lines(%q, %d) says %d lines of %q", s, max, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(string(got)) {
			t.Errorf("Lines(%q, %d) = %q: split a character", s, max, got)
		}
	})
}
