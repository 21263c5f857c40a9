package vt

import (
	"os"
	"runtime"
	"testing"
)

// A pipe is no console: on Windows it is left alone and takes no escape
// sequences; elsewhere what a terminal is decides, and a pipe is no
// terminal to begin with.
func TestEnable_pipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	got := Enable(w)
	if want := runtime.GOOS != "windows"; got != want {
		t.Errorf("Enable(pipe) = %v on %s, want %v", got, runtime.GOOS, want)
	}
	if _, err := w.Write([]byte("x")); err != nil {
		t.Errorf("the pipe is unusable after Enable: %v", err)
	}
}
