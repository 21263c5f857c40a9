package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/idle"
)

// inputTimeoutError says a pipe, FIFO or stdin sent nothing for --timeout:
// the wait ran out, exit 4 like any other.
type inputTimeoutError struct {
	what  string // "--args", "the program"
	from  string // "stdin" or a path
	after time.Duration
}

func (e *inputTimeoutError) Error() string {
	return fmt.Sprintf("%s: nothing came from %s for %s (--timeout)", e.what, e.from, e.after)
}

func (e *inputTimeoutError) ExitCode() int { return exit.Upstream }

// readInput reads up to limit bytes and one more (the caller decides about
// more) from open's reader, waiting at most timeout (0: without end) for
// each next byte, as --timeout bounds every other wait: for the open (a
// FIFO without a writer) and for each read after it.
func readInput(what, from string, timeout time.Duration, limit int64, open func() (io.ReadCloser, error)) ([]byte, error) {
	read := func(touch func()) ([]byte, error) {
		r, err := open()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		touch()
		b, err := io.ReadAll(io.LimitReader(touchReader{r, touch}, limit+1))
		if err != nil {
			return nil, fmt.Errorf("cannot read %s", from)
		}
		return b, nil
	}
	if timeout <= 0 {
		return read(func() {})
	}
	ctx, touch, cancel := idle.WithTimeout(context.Background(), timeout)
	defer cancel()
	type got struct {
		b   []byte
		err error
	}
	done := make(chan got, 1)
	// A read of stdin or a FIFO cannot be interrupted: on a timeout it is
	// left to the end of the process, which follows the error.
	go func() {
		b, err := read(touch)
		done <- got{b, err}
	}()
	select {
	case g := <-done:
		return g.b, g.err
	case <-ctx.Done():
		return nil, &inputTimeoutError{what: what, from: from, after: timeout}
	}
}

// touchReader restarts an idle clock on each read that brings bytes.
type touchReader struct {
	r     io.Reader
	touch func()
}

func (t touchReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.touch()
	}
	return n, err
}

// stdinOpener reads stdin, which is not closed after.
func stdinOpener(stdin io.Reader) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }
}

// fileOpener opens path; an error names the path once.
func fileOpener(path string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			if pe, ok := err.(*os.PathError); ok {
				err = pe.Err
			}
			return nil, fmt.Errorf("cannot read %s: %v", path, err)
		}
		return f, nil
	}
}
