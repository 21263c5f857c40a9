package idle

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// InputTimeoutError says a pipe, FIFO or stdin sent nothing for --timeout:
// the wait ran out, exit 4 like any other.
type InputTimeoutError struct {
	What  string // "--args", "the program"
	From  string // "stdin" or a path
	After time.Duration
}

// Error names what was read, from where, and for how long nothing came.
func (e *InputTimeoutError) Error() string {
	return fmt.Sprintf("%s: nothing came from %s for %s (--timeout)", e.What, e.From, e.After)
}

// ExitCode is exit.Upstream: a wait ran out.
func (e *InputTimeoutError) ExitCode() int { return exit.Upstream }

// ReadInput reads up to limit bytes and one more (the caller decides about
// more) from open's reader, waiting at most timeout (0: without end) for
// each next byte, as --timeout bounds every other wait: for the open (a
// FIFO without a writer) and for each read after it.
func ReadInput(what, from string, timeout time.Duration, limit int64, open func() (io.ReadCloser, error)) ([]byte, error) {
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
	ctx, touch, cancel := WithTimeout(context.Background(), timeout)
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
		return nil, &InputTimeoutError{What: what, From: from, After: timeout}
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

// StdinOpener reads stdin, which is not closed after.
func StdinOpener(stdin io.Reader) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }
}

// FileOpener opens path; an error names the path once.
func FileOpener(path string) func() (io.ReadCloser, error) {
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
