package clip

import (
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
