package upstream

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
)

// reportMedian adds the median of ds to the benchmark's results.
func reportMedian(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "median-µs")
}

// Starting server-everything (node) and initializing it over stdio.
func BenchmarkConnect_everythingStdio(b *testing.B) {
	ep := testenv.EverythingStdio(b)
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		up, err := Connect(context.Background(), ep, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		b.StopTimer()
		up.Close()
		b.StartTimer()
	}
	reportMedian(b, ds)
}

// One warm echo call to server-everything over stdio.
func BenchmarkCallTool_everythingStdio(b *testing.B) {
	u := connect(b, testenv.EverythingStdio(b), Options{})
	args := json.RawMessage(`{"message":"hi"}`)
	ctx := context.Background()
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := u.CallTool(ctx, "echo", args); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportMedian(b, ds)
}
