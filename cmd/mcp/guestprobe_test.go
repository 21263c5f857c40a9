package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Programs of a hostile guest's own, run by the guest tests as the test
// binary under other names: they talk to a multiplexer's socket directly,
// as any program of the guest's could.

// guestProbeMany is guest-probe-many SOCKET FILE: each line of FILE is one
// raw request, sent on a connection of its own; for each it prints one
// line, the last JSON object the multiplexer wrote (or "closed" when it
// wrote none).
func guestProbeMany() {
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		fail("read: " + err.Error())
	}
	for _, req := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		fmt.Println(lastReply(os.Args[1], []byte(req+"\n")))
	}
	os.Exit(0)
}

// lastReply sends req on a new connection and returns the last line the
// multiplexer wrote before it closed the connection.
func lastReply(socket string, req []byte) string {
	conn, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = conn.Write(req)
	last := "closed"
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		last = sc.Text()
	}
	return last
}

// guestProbeBig is guest-probe-big SOCKET SESSION BYTES: one call request
// whose argument is BYTES long, written as fast as the multiplexer reads
// it; it prints the multiplexer's last line.
func guestProbeBig() {
	conn, err := net.DialTimeout("unix", os.Args[1], 5*time.Second)
	if err != nil {
		fail("dial: " + err.Error())
	}
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	n, _ := strconv.Atoi(os.Args[3])
	head := `{"v":4,"session":"` + os.Args[2] + `","op":"call","server":"fake","tool":"echo","args":{"message":"`
	go func() {
		// The multiplexer stops reading once the request is too large;
		// the rest fails to send, which is the point.
		w := bufio.NewWriterSize(conn, 1<<20)
		_, _ = w.WriteString(head)
		chunk := strings.Repeat("x", 1<<16)
		for sent := 0; sent < n; sent += len(chunk) {
			if _, err := w.WriteString(chunk); err != nil {
				return
			}
		}
		_, _ = w.WriteString("\"}}\n")
		_ = w.Flush()
	}()
	last := "closed"
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		last = sc.Text()
	}
	fmt.Println(last)
	os.Exit(0)
}

// guestProbeHold is guest-probe-hold SOCKET N: it opens N connections and
// sends nothing on them, prints "open", and then "closed" once the
// multiplexer has closed all of them, or "still open" after 30 s.
func guestProbeHold() {
	n, _ := strconv.Atoi(os.Args[2])
	var conns []net.Conn
	for range n {
		conn, err := net.DialTimeout("unix", os.Args[1], 5*time.Second)
		if err != nil {
			fail("dial: " + err.Error())
		}
		conns = append(conns, conn)
	}
	fmt.Println("open")
	var wg sync.WaitGroup
	done := make(chan struct{})
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, _ = io.Copy(io.Discard, c)
		}()
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		fmt.Println("closed")
	case <-time.After(31 * time.Second):
		fmt.Println("still open")
	}
	os.Exit(0)
}

func fail(msg string) {
	os.Stderr.WriteString(msg + "\n")
	os.Exit(1)
}
