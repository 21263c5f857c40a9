//go:build unix || windows

package mux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/safefile"
	"github.com/mcpsh/mcp/internal/session"
)

// startTimeout bounds how long Ensure waits for a new multiplexer.
const startTimeout = 15 * time.Second

// StartError says a multiplexer could not be started. Config is set when
// it could not read its configuration: a direct connection will say why.
type StartError struct {
	Reason string
	Config bool
}

func (e *StartError) Error() string { return "the multiplexer did not start: " + e.Reason }

// Ensure returns a client of the multiplexer on socket, starting one with
// the command mk makes when none is running. The command must run a
// program that calls Listen and then Ready. Its own ExtraFiles come after
// the ready pipe, from descriptor 4, and are closed here once the child
// has its copies. Two callers racing to start one end up sharing
// whichever won.
func Ensure(ctx context.Context, socket string, mk func() (*exec.Cmd, error)) (*Client, error) {
	c, err := Dial(ctx, socket)
	if err == nil || !errors.Is(err, ErrNotRunning) {
		return c, err
	}
	sweep(filepath.Dir(socket))
	cmd, err := mk()
	if err != nil {
		return nil, &StartError{Reason: err.Error()}
	}
	if err := start(ctx, cmd); err != nil {
		return nil, err
	}
	// Ready or busy: either way one is listening or about to.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := Dial(ctx, socket)
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return c, err
		}
		var te *transportError
		if !errors.Is(err, ErrNotRunning) && !errors.As(err, &te) {
			return nil, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func start(ctx context.Context, cmd *exec.Cmd) error {
	own := cmd.ExtraFiles
	defer closeFiles(own)
	r, w, err := os.Pipe()
	if err != nil {
		return &StartError{Reason: err.Error()}
	}
	defer r.Close()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if err := handOver(cmd, w, own); err != nil {
		w.Close()
		return &StartError{Reason: err.Error()}
	}
	err = cmd.Start()
	w.Close()
	if f, ok := cmd.Stderr.(*os.File); ok {
		f.Close() // the child has its own copy
	}
	closeFiles(own)
	if err != nil {
		return &StartError{Reason: err.Error()}
	}
	go func() { _ = cmd.Wait() }()

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case s := <-line:
		switch {
		case s == "ready", s == "busy":
			return nil
		case strings.HasPrefix(s, "error: "):
			return &StartError{Reason: strings.TrimPrefix(s, "error: ")}
		case strings.HasPrefix(s, "config: "):
			return &StartError{Reason: strings.TrimPrefix(s, "config: "), Config: true}
		}
		return &StartError{Reason: "it exited before it was ready"}
	case <-timer.C:
		_ = cmd.Process.Kill()
		return &StartError{Reason: fmt.Sprintf("not ready after %v", startTimeout)}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeFiles closes what is left open of files.
func closeFiles(files []*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// Ready tells the process that started this multiplexer how the start
// went: nil for ready, ErrBusy when another one holds the socket, or why
// it failed (config says the configuration could not be read). It does
// nothing in a process Ensure did not start.
func Ready(err error, config bool) {
	if os.Getenv(readyEnv) == "" {
		return
	}
	f := readyFile(os.Getenv(readyEnv))
	// Servers started later must not inherit it.
	os.Unsetenv(readyEnv)
	if f == nil {
		return
	}
	defer f.Close()
	msg := "ready"
	switch {
	case errors.Is(err, ErrBusy):
		msg = "busy"
	case config:
		msg = "config: " + strings.Join(strings.Fields(err.Error()), " ")
	case err != nil:
		msg = "error: " + strings.Join(strings.Fields(err.Error()), " ")
	}
	_, _ = f.WriteString(msg + "\n")
}

// Shutdown stops the multiplexer on socket and waits until it has closed
// its upstream connections and exited. It asks first; a multiplexer that
// does not answer or does not stop within timeout is told to stop
// (stopProcess: SIGTERM on unix), then killed. No multiplexer running is not an error.
func Shutdown(ctx context.Context, socket string, timeout time.Duration) error {
	if !Running(socket) {
		return nil
	}
	c := hostClient(socket)
	_ = c.do(ctx, &request{Op: "stop"}, &response{})
	if WaitGone(socket, timeout) {
		return nil
	}
	pid := lockPID(socket)
	if pid <= 0 {
		return fmt.Errorf("the multiplexer on %s did not stop", socket)
	}
	stopProcess(pid, false)
	if WaitGone(socket, 5*time.Second) {
		return nil
	}
	stopProcess(pid, true)
	if WaitGone(socket, 5*time.Second) {
		return nil
	}
	return fmt.Errorf("the multiplexer %d did not stop", pid)
}

// lockPID is the pid a multiplexer wrote into its lock file.
func lockPID(socket string) int {
	data, err := safefile.Options{NoSymlink: true, Own: true, Limit: 64}.Read(socket + ".lock")
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}

// Instance is one running multiplexer: its socket and what it says of itself.
type Instance struct {
	Socket string
	Status *Status
}

// List returns the running multiplexers of this user, sorted by socket,
// those of sessions for another user included. One that does not answer
// is listed with a label that says so.
func List(ctx context.Context) ([]Instance, error) {
	dir, err := SocketDir()
	if err != nil {
		return nil, err
	}
	sweep(dir)
	locks, _ := filepath.Glob(filepath.Join(dir, "*.sock.lock"))
	sockets := make([]string, 0, len(locks))
	for _, lock := range locks {
		sockets = append(sockets, strings.TrimSuffix(lock, ".lock"))
	}
	// Sessions for another user listen in directories of their own.
	if states, err := session.List(); err == nil {
		for _, st := range states {
			if st.Guest != nil && filepath.Dir(st.Socket) != dir {
				sockets = append(sockets, st.Socket)
			}
		}
	}
	sort.Strings(sockets)
	var out []Instance
	for _, socket := range sockets {
		if !Running(socket) {
			continue
		}
		st, err := StatusOf(ctx, socket)
		if err != nil {
			st = &Status{Label: "(not answering: " + clip.Line(err.Error()) + ")"}
		}
		out = append(out, Instance{Socket: socket, Status: st})
	}
	return out, nil
}

// StopHost stops the multiplexers outside a session: t's (one for each
// environment its servers see), or with all set every one of this
// user's. It returns how many it stopped.
func StopHost(ctx context.Context, t Target, all bool) (int, error) {
	ms, err := List(ctx)
	if err != nil {
		return 0, err
	}
	var sockets []string
	for _, m := range ms {
		if m.Status.Session == "" && (all || strings.HasPrefix(filepath.Base(m.Socket), t.Key()+"-")) {
			sockets = append(sockets, m.Socket)
		}
	}
	for i, s := range sockets {
		if err := Shutdown(ctx, s, 10*time.Second); err != nil {
			return i, err
		}
	}
	return len(sockets), nil
}
