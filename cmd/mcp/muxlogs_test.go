//go:build unix

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A client that asked for log messages and stops reading them (an mcp call
// --verbose whose stderr is stuck) holds up only itself: the server's
// connection, shared with every other client of the multiplexer, still
// reads, and their calls are answered.
func TestMuxStuckLogReaderHoldsUpNobody(t *testing.T) {
	m := newMuxEnv(t)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "fake": {"command": "fake-server", "env": {"FAKE_LOGS": "1"}},
  "other": {"command": "fake-server"}}}`)
	m.trust()
	m.must("call", "fake.echo", "message=warm")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mux.Dial(ctx, m.socket(""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stuck, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	ctx = upstream.WithCallHooks(ctx, &upstream.CallHooks{OnLog: func(upstream.LogMessage) {
		select {
		case stuck <- struct{}{}:
		default:
		}
		<-release
	}})
	// Four messages of 300 kB: more than the socket holds unread.
	args, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 300<<10)})
	// The server writes its log messages beside its answer, not before
	// it: under load they may all come after the answer, which ends the
	// call and them with it. Call again until one reaches the client and
	// holds it.
	go func() {
		for range 20 {
			if _, err := c.Call(ctx, "fake", "loud", args); err != nil || len(stuck) > 0 {
				return
			}
		}
	}()
	select {
	case <-stuck:
	case <-ctx.Done():
		t.Fatal("no log message reached the client")
	}
	r := m.run(nil, "call", "fake.echo", "message=after", "--timeout", "10s")
	if r.code != 0 || r.stdout != "after\n" {
		t.Fatalf("another client's call, while one reads no log messages: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
