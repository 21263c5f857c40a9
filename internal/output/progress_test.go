package output

import "testing"

// TestProgressText: what a server says is made safe, put on one line and
// cut to the width, counting wide characters as two columns.
func TestProgressText(t *testing.T) {
	tests := []struct {
		message         string
		progress, total float64
		width           int
		want            string
	}{
		{"", 2, 5, 80, "mcp: s.t: 2 of 5"},
		{"", 0.5, 0, 80, "mcp: s.t: 0.5"},
		{"", 5.000000000000001, 10, 80, "mcp: s.t: 5 of 10"},
		{"", 1.0 / 3, 0, 80, "mcp: s.t: 0.33"},
		{"copying\nfiles\x1b[2J", 3, 4, 80, `mcp: s.t: copying files\x1b[2J (3 of 4)`},
		{"abcdefghij", 1, 2, 15, "mcp: s.t: abcde"},
		{"日本語", 1, 0, 14, "mcp: s.t: 日本"},
	}
	for _, tt := range tests {
		if got := ProgressText("s.t", tt.message, tt.progress, tt.total, tt.width); got != tt.want {
			t.Errorf("ProgressText(%q, %v, %v, %d) = %q, want %q", tt.message, tt.progress, tt.total, tt.width, got, tt.want)
		}
	}
}
