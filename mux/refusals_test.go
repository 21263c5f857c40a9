package mux

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A flood of refusals writes one log line per interval, which counts the
// ones it did not write.
func TestRefusalLog(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	r := &refusalLog{log: slog.New(slog.NewTextHandler(&buf, nil)), interval: 50 * time.Millisecond, now: func() time.Time { return clock }}
	for range 10000 {
		r.note("refused a request", "reason", "junk")
		clock = clock.Add(time.Microsecond) // 10,000 in 10 ms: all within the interval
	}
	clock = clock.Add(50 * time.Millisecond)
	r.note("refused a request", "reason", "junk")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"refused since the last line"=9999`) {
		t.Fatalf("10001 refusals logged as:\n%s", buf.String())
	}
}
