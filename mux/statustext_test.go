package mux

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A connection's status counts the tools the surface authorizes beside
// all those the server lists, so that a narrow surface on a large server
// does not read as the whole server being reachable.
func TestEngine_statusCountsAuthorized(t *testing.T) {
	t.Parallel()
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", Tools: []string{"echo"}}}}
	e := NewEngine(s, map[string]manifests.Endpoint{"fake": testenv.FakeServer(t, testenv.ModeDefault)}, os.LookupEnv, upstream.Options{})
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.Tools(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	st := e.Status()
	if len(st) != 1 || st[0].Tools < 2 || st[0].Authorized == nil || *st[0].Authorized != 1 {
		t.Fatalf("status %+v: want 1 tool authorized of the fake server's several", st)
	}
	var b strings.Builder
	(&Status{PID: 7, Label: "recipe /r", Started: time.Unix(0, 0), Servers: st}).WriteText(&b, time.Unix(60, 0))
	want := "  fake  connecting, 1 of " + strconv.Itoa(st[0].Tools) + " tools authorized"
	if st[0].Connected {
		want = strings.Replace(want, "connecting", "connected", 1)
	}
	if !strings.Contains(b.String(), want) {
		t.Errorf("daemon status says:\n%s\nwant a line starting %q", b.String(), want)
	}
}

// A multiplexer that does not say how many tools it authorizes is shown
// with the count it gives, as listed; one that says why it is one of its
// own says so under its first line.
func TestStatus_writeTextWithoutAuthorized(t *testing.T) {
	one := 1
	var b strings.Builder
	(&Status{PID: 7, Label: "recipe /r", Why: "why not", Started: time.Unix(0, 0), Requests: 1, Servers: []ServerStatus{
		{ID: "files", Connected: true, Tools: 14, Authorized: new(int), PID: 9, Protocol: "2025-11-25"},
		{ID: "memory", Tools: 1, Authorized: &one},
		{ID: "old", Connected: true, Tools: 14},
	}}).WriteText(&b, time.Unix(61, 0))
	want := "pid 7  recipe /r  (up 1m1s, 1 request)\n" +
		"  (why not)\n" +
		"  files  connected, 0 of 14 tools authorized, pid 9, MCP 2025-11-25\n" +
		"  memory  connecting, 1 of 1 tool authorized\n" +
		"  old  connected, 14 tools listed\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
