package mux

import (
	"log/slog"
	"sync"
	"time"
)

// refusalLog writes what the multiplexer refuses to its log, at most once
// per interval: a client that sends refused requests as fast as it can
// grows the log by one line per interval, which says how many more were
// refused since the last.
type refusalLog struct {
	log      *slog.Logger
	interval time.Duration
	// now is the clock: time.Now.
	now func() time.Time

	mu      sync.Mutex
	last    time.Time
	skipped int
}

// refusalInterval is how often a refusal is written to the log at most.
const refusalInterval = 10 * time.Second

// note logs one refusal, or counts it when one was logged less than an
// interval ago.
func (r *refusalLog) note(msg string, args ...any) {
	r.mu.Lock()
	now := r.now()
	if !r.last.IsZero() && now.Sub(r.last) < r.interval {
		r.skipped++
		r.mu.Unlock()
		return
	}
	skipped := r.skipped
	r.last, r.skipped = now, 0
	r.mu.Unlock()
	if skipped > 0 {
		args = append(args, "refused since the last line", skipped)
	}
	r.log.Warn(msg, args...)
}
