package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpsh/mcp/internal/procgroup"
	"github.com/mcpsh/mcp/manifests"
)

// How long Close gives a stdio server at each step of stopping it: after
// its stdin is closed, after SIGTERM, and after SIGKILL.
const (
	stdinGrace = 1 * time.Second
	termGrace  = 2 * time.Second
	killGrace  = 2 * time.Second
	// leftoverGrace is how long processes the server left behind in its
	// group get between SIGTERM and SIGKILL.
	leftoverGrace = 100 * time.Millisecond
	// drainGrace is how long the reader gets to take what a dead server
	// wrote before its stdout is closed under it.
	drainGrace = 1 * time.Second
)

// process is one stdio server, the leader of its own process group. Its
// pipes are plain *os.File so that waiting for it never closes them under a
// reader that still has a response to take.
type process struct {
	cmd    *exec.Cmd
	pid    int
	group  *procgroup.Group
	stdin  *os.File // write end
	stdout *os.File // read end
	stderr *os.File // read end
	tail   tailBuffer

	exited     chan struct{} // closed once the leader has been reaped
	waitErr    error         // valid after exited
	stderrDone chan struct{} // closed once stderr reached EOF
}

// startProcess starts ep.Command in its own process group with the
// environment its entry declares (ep.ServerEnv of this process's), in
// ep.Cwd. A
// relative command with a slash in it is taken relative to ep.Dir, the
// directory of the file that declared it.
func startProcess(ep manifests.Endpoint, mirror io.Writer) (*process, error) {
	path := ep.Command
	if ep.Dir != "" && !filepath.IsAbs(path) && strings.ContainsRune(path, filepath.Separator) {
		path = filepath.Join(ep.Dir, path)
	}
	cmd := exec.Command(path, ep.Args...)
	cmd.Env = ep.ServerEnv(os.Environ())
	cmd.Dir = ep.Cwd

	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	group, err := procgroup.Start(cmd)
	if err != nil {
		closeAll()
		return nil, err
	}
	// The child holds its own copies now.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		group:      group,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go func() {
		defer close(p.stderrDone)
		var w io.Writer = &p.tail
		if mirror != nil {
			// A failing mirror must not stop the drain, or the server
			// would block writing to stderr.
			w = io.MultiWriter(&p.tail, forgiving{mirror})
		}
		_, _ = io.Copy(w, errR)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// forgiving is a writer whose errors are ignored.
type forgiving struct{ w io.Writer }

func (f forgiving) Write(p []byte) (int, error) {
	_, _ = f.w.Write(p)
	return len(p), nil
}

func (p *process) waitExit(d time.Duration) bool { return waitChan(p.exited, d) }

func waitChan(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// exitError describes how the leader ended. Call after exited is closed.
// The server's exit status is told, not wrapped: *exec.ExitError has an
// ExitCode of its own, the server's, which is not mcp's.
func (p *process) exitError(when string) error {
	if p.waitErr == nil {
		return fmt.Errorf("exited %s", when)
	}
	return fmt.Errorf("exited %s: %v", when, p.waitErr)
}

// stderrTail waits briefly for stderr to be drained, then returns its last lines.
func (p *process) stderrTail() string {
	waitChan(p.stderrDone, 500*time.Millisecond)
	return p.tail.String()
}

// sweep stops whatever the (already exited) leader left in its group.
func (p *process) sweep() {
	if !p.group.Signal(syscall.SIGTERM) {
		return
	}
	deadline := time.Now().Add(leftoverGrace)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if !p.group.Signal(0) {
			return
		}
	}
	p.group.Signal(syscall.SIGKILL)
}

// stop ends the process group in order: stdin closed, a grace period, then
// SIGTERM, then SIGKILL; it reaps the leader and releases the pipes.
func (p *process) stop() error {
	p.stdin.Close()
	var err error
	if !p.waitExit(stdinGrace) {
		p.group.Signal(syscall.SIGTERM)
		if !p.waitExit(termGrace) {
			p.group.Signal(syscall.SIGKILL)
			if !p.waitExit(killGrace) {
				err = fmt.Errorf("server process %d did not exit after SIGKILL", p.pid)
			}
		}
	}
	p.sweep()
	p.group.Close()
	p.stdout.Close()
	if !waitChan(p.stderrDone, time.Second) {
		// Something outside the group still holds the pipe.
		p.stderr.Close()
	}
	return err
}

// connectStdio starts the server and initializes it, speaking revision. A
// legacy handshake the server refuses with a JSON-RPC error gives
// *refusedError.
func connectStdio(ctx context.Context, ep manifests.Endpoint, opts Options, revision string) (*conn, error) {
	u := newConn(ctx, ep.ID, manifests.TransportStdio, opts)
	u.secret = opts.secretsFor(ep)
	u.revision = revision
	if revision == Modern {
		u.modern = newModern(revision, u.capabilities(), opts)
	}
	p, err := startProcess(ep, opts.Stderr)
	if err != nil {
		u.Close()
		return nil, u.unavailable(u.redact(fmt.Errorf("start %s: %w", ep.Command, err)))
	}
	u.proc = p
	stdout := &lineLimitReader{r: p.stdout, max: opts.MaxMessageBytes}
	stdoutEnded := make(chan struct{})
	stdout.done = func(err error) {
		close(stdoutEnded)
		if errors.Is(err, ErrMessageTooLarge) || errors.Is(err, ErrMessageTooDeep) {
			u.setDead(u.unavailable(u.limitError(err)))
			p.group.Signal(syscall.SIGKILL)
		}
	}
	// The transport gets our pipes; the process itself stays ours, so that
	// we can reap it, stop its whole group and see it die.
	replies := &lineTap{r: stdout, max: opts.MaxMessageBytes, onLine: u.checkReply}
	tr := transport.NewIO(replies, p.stdin, nil)
	transport.WithCommandLogger(u.log)(tr)
	u.tr = tr
	u.c = u.newClient(tr)
	u.goOwned(func() { u.watchExit(stdoutEnded) })

	if err := u.handshake(ctx, opts, func() { p.group.Signal(syscall.SIGKILL) }); err != nil {
		refused := u.modern == nil && ctx.Err() == nil && refusesHandshake(err)
		err = u.connectError(ctx, opts, err)
		u.Close()
		withheld(err, ep)
		if refused {
			return nil, &refusedError{err: err}
		}
		return nil, err
	}
	return u, nil
}

// withheld names, in err when it says the server failed to start, the
// host variables that look like credentials and that it did not get: a
// server that needs one now fails where mcp used to pass the whole
// environment on.
func withheld(err error, ep manifests.Endpoint) {
	var ue *UnavailableError
	if errors.As(err, &ue) && ue.Withheld == nil {
		ue.Withheld = ep.Withheld(os.Environ())
	}
}

// watchExit turns an unexpected exit of the server into a dead connection:
// it stops what the server left behind, records why it died, and makes sure
// calls waiting for an answer learn of it.
func (u *conn) watchExit(stdoutEnded <-chan struct{}) {
	p := u.proc
	select {
	case <-p.exited:
	case <-u.closing:
		return
	}
	select {
	case <-u.closing:
		return
	default:
	}
	p.group.Signal(syscall.SIGKILL)
	u.setDead(&UnavailableError{Server: u.server, Err: p.exitError("unexpectedly"), Stderr: u.secret.Text(p.stderrTail())})
	if !waitChan(stdoutEnded, drainGrace) {
		// A process outside the group still holds stdout open.
		p.stdout.Close()
	}
}
