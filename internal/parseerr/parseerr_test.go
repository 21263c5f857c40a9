package parseerr

import "testing"

// Of several names kong suggests, the nearest are kept, a swap of two
// letters being one edit.
func TestClosest(t *testing.T) {
	tests := []struct{ word, suggestion, want string }{
		{"lsit", `one of "list", "init"?`, `"list"?`},
		{"lst", `"list"?`, `"list"?`},
		{"rn", `one of "run", "rm"?`, `one of "run", "rm"?`},
		{"x", `one of "a", broken?`, `one of "a", broken?`},
	}
	for _, tt := range tests {
		if got := closest(tt.word, tt.suggestion); got != tt.want {
			t.Errorf("closest(%q, %q) = %q, want %q", tt.word, tt.suggestion, got, tt.want)
		}
	}
}
