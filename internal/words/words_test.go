package words

import "testing"

// A swap of neighbours is one edit, and runes count, not bytes.
func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"list", "list", 0}, {"lsit", "list", 1}, {"lsit", "init", 2}, {"", "run", 3},
		{"héllo", "hello", 1}, {"ab", "ba", 1}, {string(make([]rune, 65)), "x", 1 << 10},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
