package upstream

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineLimitReader(t *testing.T) {
	tests := []struct {
		in      string
		max     int64
		tooMany bool
	}{
		{"", 4, false},
		{"abcd\n", 4, false},
		{"abcd\nefgh\nij", 4, false},
		{"abcde\n", 4, true},
		{"ab\ncdefg", 4, true},
		{strings.Repeat("abc\n", 1000), 3, false},
		{strings.Repeat("abc\n", 1000) + "abcd", 3, true},
	}
	for _, tt := range tests {
		// One byte at a time and all at once must agree.
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(tt.in), "bytes": iotest.OneByteReader(strings.NewReader(tt.in))} {
			var ended error
			l := &lineLimitReader{r: r, max: tt.max, done: func(err error) { ended = err }}
			_, err := io.ReadAll(l)
			if got := errors.Is(err, ErrMessageTooLarge); got != tt.tooMany {
				t.Errorf("%q max %d (%s): err = %v", tt.in, tt.max, name, err)
			}
			if want := err; want == nil && !errors.Is(ended, io.EOF) || want != nil && ended != want {
				t.Errorf("%q (%s): done got %v", tt.in, name, ended)
			}
		}
	}
}

func TestTailBuffer(t *testing.T) {
	var tb tailBuffer
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&tb, "line %d\r\n", i)
	}
	tb.Write([]byte(strings.Repeat("x", 5000)))
	tb.Write([]byte("\nlast, unfinished"))
	lines := strings.Split(tb.String(), "\n")
	if len(lines) != tailLines+1 || lines[0] != "line 12" || lines[tailLines-2] != "line 30" {
		t.Errorf("lines = %q", lines)
	}
	if long := lines[tailLines-1]; len(long) > tailLineSize+8 || !strings.HasSuffix(long, "…") {
		t.Errorf("long line kept as %d bytes", len(long))
	}
	if lines[tailLines] != "last, unfinished" {
		t.Errorf("unfinished line = %q", lines[tailLines])
	}
}
