package winpipe

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func listen(t *testing.T) *Listener {
	t.Helper()
	l, err := Listen(NewName())
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// echo answers each line on every connection l accepts with the line.
func echo(l *Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if _, err := io.WriteString(c, line); err != nil {
					return
				}
			}
		}()
	}
}

// NewName makes names ValidName takes, each new; ValidName takes nothing
// else, so no path or other pipe is ever opened as a multiplexer's.
func TestNames(t *testing.T) {
	a, b := NewName(), NewName()
	if a == b || !ValidName(a) || !ValidName(b) {
		t.Errorf("NewName = %q, %q; want two names ValidName takes", a, b)
	}
	for _, bad := range []string{"", `\\.\pipe\mcp-`, `C:\Users\me\x.sock`, `\\.\pipe\other-` + a[len(prefix):],
		strings.ToUpper(a), a + "0", a[:len(a)-1], `\\server\pipe\mcp-` + a[len(prefix):], a[:len(a)-1] + "1"} {
		if ValidName(bad) {
			t.Errorf("ValidName(%q) is true", bad)
		}
	}
	if _, err := Listen(`\\.\pipe\anything`); err == nil {
		t.Error("Listen took a name NewName did not make")
	}
	if _, err := Dial(t.Context(), `\\.\pipe\anything`); err == nil {
		t.Error("Dial took a name NewName did not make")
	}
}

// Lines go both ways, each end names the other's process (this one), and
// it runs as this user.
func TestListenDial(t *testing.T) {
	l := listen(t)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Errorf("Accept: %v", err)
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := Dial(t.Context(), l.Addr().String())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	s, ok := <-accepted
	if !ok {
		t.FailNow()
	}
	defer s.Close()
	for _, end := range []net.Conn{c, s} {
		pid, ok := end.(*Conn).PeerPID()
		if !ok || pid != uint32(os.Getpid()) {
			t.Errorf("PeerPID = %d, %v; want %d", pid, ok, os.Getpid())
		}
		if !PeerIsMe(end) {
			t.Error("PeerIsMe is false for this process")
		}
	}
	if _, err := io.WriteString(c, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(s).ReadString('\n'); err != nil || line != "ping\n" {
		t.Errorf("the listener read %q, %v", line, err)
	}
}

// Everything the listener's end writes before it closes is read, then
// the end of the stream: an answer is never cut short by its close.
func TestCloseAfterWrite(t *testing.T) {
	l := listen(t)
	big := strings.Repeat("x", 3*bufSize) + "\n"
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		io.WriteString(c, big)
		c.Close()
	}()
	c, err := Dial(t.Context(), l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if len(got) != len(big) || (err != nil && !errors.Is(err, io.EOF)) {
		t.Errorf("read %d bytes, %v; want %d and the end", len(got), err, len(big))
	}
}

// Clients at once are each answered, and a read deadline ends a read
// that nothing answers.
func TestManyClientsAndDeadline(t *testing.T) {
	l := listen(t)
	go echo(l)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			c, err := Dial(t.Context(), l.Addr().String())
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			for j := range 50 {
				want := strconv.Itoa(i*100+j) + "\n"
				io.WriteString(c, want)
				if got, err := r.ReadString('\n'); got != want {
					t.Errorf("client %d read %q, %v; want %q", i, got, err, want)
					return
				}
			}
			c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err := r.ReadString('\n'); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("client %d: a read past its deadline = %v", i, err)
			}
		})
	}
	wg.Wait()
}

// Close ends an Accept that waits, and the pipe is gone: a client finds
// nothing there.
func TestCloseEndsAccept(t *testing.T) {
	l := listen(t)
	done := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close = %v; want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waits 5 s after Close")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if c, err := Dial(ctx, l.Addr().String()); err == nil {
		c.Close()
		t.Error("Dial found a pipe after Close")
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Accept = %v; want net.ErrClosed", err)
	}
}

// Another process of this user connects, and the listener names it.
func TestPeerIsAnotherProcess(t *testing.T) {
	l := listen(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "WINPIPE_DIAL="+l.Addr().String())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pid, ok := c.(*Conn).PeerPID()
	if !ok || pid != uint32(cmd.Process.Pid) {
		t.Errorf("PeerPID = %d, %v; want the child's, %d", pid, ok, cmd.Process.Pid)
	}
	if !PeerIsMe(c) {
		t.Error("PeerIsMe is false for a child of this user")
	}
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "hello\n" {
		t.Errorf("the child wrote %q", line)
	}
}

// The test binary started with WINPIPE_DIAL is TestPeerIsAnotherProcess's
// child: it dials the pipe, says hello, and exits.
func init() {
	name := os.Getenv("WINPIPE_DIAL")
	if name == "" {
		return
	}
	c, err := Dial(context.Background(), name)
	if err != nil {
		os.Exit(3)
	}
	io.WriteString(c, "hello\n")
	c.Close()
	os.Exit(0)
}

// A client that opens the pipe and closes it before the listener sees it
// leaves it listening: the next client is answered.
func TestClientThatLeavesAtOnce(t *testing.T) {
	l := listen(t)
	c, err := Dial(t.Context(), l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	go echo(l)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	c, err = Dial(ctx, l.Addr().String())
	if err != nil {
		t.Fatalf("the next client: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "still here\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); line != "still here\n" {
		t.Errorf("after a client that left: read %q, %v", line, err)
	}
}
