//go:build unix

package localuser

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// listenEnv, in the environment of the test binary, makes it the listener
// Listen started: it listens on the socket the variable names.
const listenEnv = "LOCALUSER_LISTEN"

// Listener is a process of another user's listening on a unix socket, as
// one squatting on a path mcp would connect to: it records every byte any
// client sends it and answers nothing.
type Listener struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	err   bytes.Buffer
	done  bool
}

// startListener starts bin as the listener on socket, running as u.
func (u *User) startListener(bin, socket string) (*Listener, error) {
	l := &Listener{cmd: exec.Command(bin)}
	l.cmd.Env = []string{listenEnv + "=" + socket, "PATH=/usr/bin:/bin"}
	l.cmd.Dir = "/"
	l.cmd.SysProcAttr = u.SysProcAttr()
	l.cmd.Stderr = &l.err
	var err error
	if l.stdin, err = l.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := l.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	l.out = bufio.NewReader(stdout)
	return l, l.cmd.Start()
}

// Listen runs the test binary as u, listening on socket: it makes the
// socket's directory (mode 0755) where there is none, and the socket
// mode 0777, so that anyone may connect. The test binary must call
// ListenerMain before anything else (from TestMain or an init function).
func (u *User) Listen(t testing.TB, socket string) *Listener {
	t.Helper()
	bin := runnableCopy(t)
	var l *Listener
	for try := 0; ; try++ {
		var err error
		if l, err = u.startListener(bin, socket); err == nil {
			break
		}
		// A test running beside this one may fork while the copy was
		// still open for writing: the kernel refuses to run it until
		// that child has exec'd (ETXTBSY). It passes at once.
		if !errors.Is(err, syscall.ETXTBSY) || try == 50 {
			t.Fatalf("starting a listener as %s: %v", u.Name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		if !l.done {
			l.stdin.Close()
			_ = l.cmd.Process.Kill()
			_ = l.cmd.Wait()
		}
	})
	if line, _ := l.out.ReadString('\n'); line != "listening\n" {
		t.Fatalf("the listener as %s on %s: %q, stderr %q", u.Name, socket, line, l.err.String())
	}
	return l
}

// Received stops the listener and returns how many connections it
// accepted and everything it received on them.
func (l *Listener) Received(t testing.TB) (conns int, data string) {
	t.Helper()
	l.stdin.Close()
	line, _ := l.out.ReadString('\n')
	err := l.cmd.Wait()
	l.done = true
	var quoted string
	if _, serr := fmt.Sscanf(line, "received %d %q", &conns, &quoted); serr != nil || err != nil {
		t.Fatalf("the listener: %q (%v), stderr %q", line, err, l.err.String())
	}
	return conns, quoted
}

// ListenerMain makes the test binary the listener when Listen started it,
// and returns otherwise.
func ListenerMain() {
	socket, ok := os.LookupEnv(listenEnv)
	if !ok {
		return
	}
	os.Exit(listen(socket))
}

// listen serves Listener until its stdin closes and every connection made
// by then is accepted: each is read up to its first newline (5 s at most)
// and closed, as a program that only wants to hear a client's first
// request would.
func listen(socket string) int {
	_ = os.Mkdir(filepath.Dir(socket), 0o755)
	l, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Chmod(socket, 0o777); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("listening")
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		// Connections made already but not yet accepted are still
		// counted: they wait in the backlog, which Accept drains first.
		_ = l.(*net.UnixListener).SetDeadline(time.Now().Add(500 * time.Millisecond))
	}()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		got   strings.Builder
		conns int
	)
	for {
		c, err := l.Accept()
		if err != nil {
			break
		}
		conns++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, _ := bufio.NewReader(io.LimitReader(c, 1<<20)).ReadBytes('\n')
			mu.Lock()
			got.Write(b)
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Printf("received %d %q\n", conns, got.String())
	return 0
}

// runnableCopy is a copy of the test binary that any user may run: the
// one go test built sits in a directory only its user may enter.
func runnableCopy(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "localuser-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(exe))
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}
