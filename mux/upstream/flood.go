package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// floodEvery is how often the requests of a kind a server repeats are
// counted in one line, after the first was told in full.
const floodEvery = 5 * time.Second

// floodGate keeps a server that repeats a request (for input, say) from
// writing a line for each: the first of each kind (or the first few) is
// told in full, and
// those after it are counted and told as one line per interval, and once
// more as the connection closes.
type floodGate struct {
	summary func(kind string, n int, over time.Duration) // told of each count
	first   map[string]int                               // how many of a kind are told in full; 1 when not said

	mu     sync.Mutex
	seen   map[string]int // how many of each kind were told in full
	counts map[string]int // kinds counted since start
	start  time.Time
	timer  *time.Timer
}

// admit says whether an event of kind is to be told in full; if not, it is
// counted.
func (g *floodGate) admit(kind string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen, g.counts = map[string]int{}, map[string]int{}
	}
	if g.seen[kind] < max(1, g.first[kind]) {
		g.seen[kind]++
		return true
	}
	if len(g.counts) == 0 {
		g.start = time.Now()
		if g.timer == nil {
			g.timer = time.AfterFunc(floodEvery, g.flush)
		} else {
			g.timer.Reset(floodEvery)
		}
	}
	g.counts[kind]++
	return false
}

// once says whether kind is seen for the first time; it is not counted.
func (g *floodGate) once(kind string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen, g.counts = map[string]int{}, map[string]int{}
	}
	g.seen[kind]++
	return g.seen[kind] == 1
}

// flush tells the counts so far, a line per kind.
func (g *floodGate) flush() {
	g.mu.Lock()
	counts, over := g.counts, time.Since(g.start)
	if len(counts) > 0 {
		g.counts = map[string]int{}
	}
	g.mu.Unlock()
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		g.summary(k, counts[k], over)
	}
}

// close stops the clock and tells what is counted.
func (g *floodGate) close() {
	g.mu.Lock()
	if g.timer != nil {
		g.timer.Stop()
	}
	g.mu.Unlock()
	g.flush()
}

// roughly is d for a person: whole seconds, or tenths under ten.
func roughly(d time.Duration) string {
	if d >= 10*time.Second {
		return d.Round(time.Second).String()
	}
	return max(d.Round(100*time.Millisecond), 100*time.Millisecond).String()
}

// floodKindURL counts requests for input at a URL that were not relayed.
const floodKindURL = "url"

// floodSummary is the line or event of a count: requests for input
// answered by the rule go to OnElicitation and the log, others to
// OnWarning.
func (u *conn) floodSummary(kind string, n int, over time.Duration) {
	if msg, ok := strings.CutPrefix(kind, floodKindLog); ok {
		u.log.Warn(fmt.Sprintf("%d more lines like %q in the last %s", n, msg, roughly(over)))
		return
	}
	if line, ok := map[string]string{
		floodKindURL:     "%s: %d more requests for input at a URL not relayed in the last %s",
		floodKindTool:    "%s: %d more tools not offered for their size in the last %s",
		floodKindInvalid: "%s: %d more entries of tools/list not offered for their name in the last %s",
	}[kind]; ok {
		line = fmt.Sprintf(line, u.server, n, roughly(over))
		if u.onWarn != nil {
			u.onWarn(line)
		} else {
			u.log.Warn(line)
		}
		return
	}
	ev := Elicitation{Server: u.server, Action: kind, Repeats: n, Over: over}
	u.log.Info("answered more requests for input", "action", kind, "count", n, "over", roughly(over))
	if u.onElicit != nil {
		u.onElicit(ev)
	}
}

// floodKindLog prefixes the kinds of the transports' log lines, by
// message.
const floodKindLog = "log "

// transportLog is the logger the transports write to: each message is
// logged the first time, then counted, since a server decides how often
// the transport logs (an unanswered request from the server is a line
// each).
func (u *conn) transportLog() *slog.Logger {
	return slog.New(&floodHandler{Handler: u.log.Handler(), gate: &u.floods})
}

// floodHandler passes a record on when the gate admits its message.
type floodHandler struct {
	slog.Handler
	gate *floodGate
}

func (h *floodHandler) Handle(ctx context.Context, r slog.Record) error {
	if !h.gate.admit(floodKindLog + r.Message) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h *floodHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &floodHandler{Handler: h.Handler.WithAttrs(attrs), gate: h.gate}
}

func (h *floodHandler) WithGroup(name string) slog.Handler {
	return &floodHandler{Handler: h.Handler.WithGroup(name), gate: h.gate}
}
