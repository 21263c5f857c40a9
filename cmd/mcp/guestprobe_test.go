package main

import (
	"bufio"
	"encoding/json"
	"errors"
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

// guestProbeFire is guest-probe-fire SOCKET FILE SECONDS: each line of FILE
// is a raw request sent on a connection of its own, all at once; it reads
// each connection for up to SECONDS, all at once, then prints one line per
// connection: "refused" when the multiplexer refused the request, else
// "answered", "closed", or "pending" when nothing came in that time.
func guestProbeFire() {
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		fail("read: " + err.Error())
	}
	wait, _ := strconv.Atoi(os.Args[3])
	reqs := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	conns := make([]net.Conn, len(reqs))
	for i, req := range reqs {
		c, err := net.DialTimeout("unix", os.Args[1], 5*time.Second)
		if err != nil {
			fail("dial: " + err.Error())
		}
		conns[i] = c
		go func() { _, _ = c.Write([]byte(req + "\n")) }()
	}
	deadline := time.Now().Add(time.Duration(wait) * time.Second)
	out := make([]string, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(deadline)
			b, err := io.ReadAll(c)
			var ne net.Error
			switch {
			case len(b) == 0 && errors.As(err, &ne) && ne.Timeout():
				out[i] = "pending"
			case strings.Contains(string(b), "the multiplexer refused the request"):
				out[i] = "refused"
			case strings.Contains(string(b), `"result"`) && strings.HasSuffix(string(b), "}\n"):
				out[i] = "answered"
			default:
				out[i] = "closed"
			}
		}()
	}
	wg.Wait()
	for _, o := range out {
		fmt.Println(o)
	}
	os.Exit(0)
}

// stallServer is an MCP stdio server that reads one request at a time and
// never comes back from a call of its tool "stall": what is written to it
// after that stays in its stdin pipe. It writes its pid to STALL_PID_FILE.
func stallServer() {
	_ = os.WriteFile(os.Getenv("STALL_PID_FILE"), []byte(strconv.Itoa(os.Getpid())), 0o600)
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0)
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"` + req.Params.ProtocolVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"stall","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"stall","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			select {} // reads no more
		default:
			result = `{}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
}
