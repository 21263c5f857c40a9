package script

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Isolated says whether StartChild starts a process for a program; where
// it does not (outside Linux, macOS, the BSDs and Windows), programs run
// in this one, with Run.
const Isolated = isolated

// Child is the process of one program, started before the program is
// known so that its start overlaps the reading of the configuration.
type Child struct {
	cmd      *exec.Cmd
	err      error    // why it could not start
	to       *os.File // its descriptor 3
	from     *os.File // its descriptor 4
	once     sync.Once
	mu       sync.Mutex
	childErr bytes.Buffer // the head of its own stderr
	sys      childSys     // what its system holds of it beside cmd
}

// childStderr is how much of the child's own stderr is kept: enough for
// the runtime's first lines, none of a goroutine dump.
const childStderr = 4 << 10

// StartChild starts this binary again, with ChildArg, to run one program
// (Child.Run); it is nil where programs run in this process. Close ends a
// child that runs no program.
func StartChild() *Child { return startChild() }

// startChild is StartChild with env added to the child's environment.
func startChild(env ...string) *Child {
	if !isolated {
		return nil
	}
	c := &Child{}
	exe, err := os.Executable()
	if err != nil {
		c.err = err
		return c
	}
	c.cmd = exec.Command(exe, ChildArg)
	c.cmd.Args[0] = "mcp"
	if env != nil {
		c.cmd.Env = append(os.Environ(), env...)
	}
	c.err = c.start()
	return c
}

func (c *Child) start() error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cr, cw, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return err
	}
	c.cmd.Stderr = &headWriter{buf: &c.childErr, mu: &c.mu, max: childStderr}
	err = c.launch(pr, cw)
	pr.Close()
	cw.Close()
	if err != nil {
		pw.Close()
		cr.Close()
		c.cmd = nil
		return err
	}
	c.to, c.from = pw, cr
	return nil
}

// Close ends the child: one that has said how its run ended exits by
// itself; one that has not is killed after a second, or at once when it
// never ran a program.
func (c *Child) Close() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		if c.cmd == nil {
			return
		}
		c.to.Close()
		exited := make(chan struct{})
		go func() {
			select {
			case <-exited:
			case <-time.After(time.Second):
				_ = c.cmd.Process.Kill()
			}
		}()
		_ = c.cmd.Wait()
		close(exited)
		c.from.Close()
		c.release()
	})
}

// lost is the error of a child that ended without saying how the run
// ended: out of memory, as a rule, or ended there by this process
// (pastLimit). readErr, if any, is why its messages
// could no longer be read.
func (c *Child) lost(lim Limits, readErr error) error {
	c.Close()
	c.mu.Lock()
	head := c.childErr.String()
	c.mu.Unlock()
	if c.pastLimit() || outOfMemory(head) {
		return &LimitError{Kind: "memory", Limit: int64(lim.MaxMemory)}
	}
	if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, io.ErrUnexpectedEOF) {
		return &EngineError{Msg: "stopped: " + readErr.Error()}
	}
	why := c.cmd.ProcessState.String()
	if line, _, _ := strings.Cut(strings.TrimSpace(head), "\n"); line != "" {
		why = line
	}
	return &EngineError{Msg: "stopped: " + why}
}

// EngineError says the process that runs a program could not start, or
// ended without saying how the run ended for a reason other than its
// memory limit.
type EngineError struct{ Msg string }

func (e *EngineError) Error() string { return "the program's engine " + e.Msg }

// residentMarker is the line the watchdog (watchResident) writes to stderr
// as it ends the process past the limit.
const residentMarker = "mcp: resident memory past the program's memory limit"

// outOfMemory says whether the head of a Go program's stderr is the
// runtime's fatal error for memory it could not get, or the watchdog's
// line (residentMarker).
func outOfMemory(head string) bool {
	line, _, _ := strings.Cut(head, "\n")
	line = strings.TrimPrefix(line, "fatal error: ")
	// A thread the C library cannot make, under the limit, is address
	// space for its stack it cannot get.
	for _, p := range []string{residentMarker, "runtime: out of memory", "out of memory", "runtime: cannot allocate memory", "runtime/cgo: pthread_create failed"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	// On Windows the runtime says why it could not commit memory, or make
	// a thread, before it throws: a job's memory limit is
	// ERROR_COMMITMENT_LIMIT (1455).
	for _, p := range []string{"runtime: VirtualAlloc of ", "runtime: failed to create new OS thread"} {
		if strings.HasPrefix(line, p) {
			_, errno, _ := strings.Cut(line, "errno=")
			switch strings.TrimSuffix(errno, ")") {
			case "8", "1455", "1816": // not enough memory, the commit limit, not enough quota
				return true
			}
		}
	}
	// A build with the race detector maps its shadow of the heap as the
	// heap grows, under the same limit: "==PID==ERROR: ThreadSanitizer
	// failed to allocate ... (errno: 12)".
	return strings.Contains(line, "ThreadSanitizer failed to allocate") && strings.HasSuffix(line, "(errno: 12)")
}

// headWriter keeps the first max bytes written to it.
type headWriter struct {
	buf *bytes.Buffer
	mu  *sync.Mutex
	max int
}

func (w *headWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}
