package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if median(xs) != 3 || percentile(xs, 0) != 1 || percentile(xs, 1) != 5 || median(nil) != 0 {
		t.Errorf("median %v", median(xs))
	}
	if xs[0] != 5 {
		t.Error("percentile sorted its input")
	}
}

func TestRun_Small(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.jsonl")
	data := `{"id": "w.get_forecast", "server": "w", "name": "get_forecast", "description": "weather forecast for a city, stock price today, convert docx to pdf, list files in a directory"}`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	// The measured child processes are this test binary (see TestMain).
	t.Setenv("SEARCHLATENCY_CHILD", "1")
	if err := run(p, t.TempDir(), 40, 2, 1); err != nil {
		t.Fatal(err)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("SEARCHLATENCY_CHILD") == "1" && len(os.Args) > 1 && (os.Args[1] == modeQuery || os.Args[1] == modeNoop) {
		os.Exit(child(os.Args[1], os.Args[2:]))
	}
	os.Exit(m.Run())
}
