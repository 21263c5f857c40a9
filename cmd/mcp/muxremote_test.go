//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv"
)

// dropper is a proxy to an SSE server that can cut every open event
// stream, as a network drop or a restarting load balancer would.
type dropper struct {
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	open  []context.CancelFunc
}

func (d *dropper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		ctx, cancel := context.WithCancel(r.Context())
		d.mu.Lock()
		d.open = append(d.open, cancel)
		d.mu.Unlock()
		r = r.WithContext(ctx)
	}
	d.proxy.ServeHTTP(w, r)
}

func (d *dropper) drop() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.open)
	for _, cancel := range d.open {
		cancel()
	}
	d.open = nil
	return n
}

// Remote faults through the multiplexer: a server answering 500, and an
// SSE stream that drops. Each gives a clear error at most once, and the
// next call works.
func TestMuxRemoteFaults(t *testing.T) {
	target, err := url.Parse(testenv.EverythingHTTP(t, "sse"))
	if err != nil {
		t.Fatal(err)
	}
	up := &url.URL{Scheme: target.Scheme, Host: target.Host}
	d := &dropper{proxy: httputil.NewSingleHostReverseProxy(up)}
	d.proxy.FlushInterval = -1
	d.proxy.ErrorLog = log.New(io.Discard, "", 0)
	sse := httptest.NewServer(d)
	t.Cleanup(sse.Close)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal trouble", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)

	m := newMuxEnv(t)
	manifest, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fake":   map[string]any{"command": "fake-server"},
		"events": map[string]any{"url": sse.URL + target.Path, "type": "sse"},
		"broken": map[string]any{"url": broken.URL + "/mcp", "type": "http"},
	}})
	writeFile(t, filepath.Join(m.root, "mcp.json"), string(manifest))
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
	  {"id": "fake", "tools": {"include": ["echo"]}},
	  {"id": "events", "tools": {"include": ["echo"]}},
	  {"id": "broken", "tools": {"include": ["echo"]}}]}}}`)
	m.trust()

	r := m.expect(exit.Upstream, "mcp: error: server broken is unavailable", "call", "broken.echo", "message=x")
	if !strings.Contains(r.stderr, "500") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("a 500 should give one line naming the status:\n%s", r.stderr)
	}
	if out := m.must("call", "fake.echo", "message=after"); out != "after\n" {
		t.Errorf("after a 500 the next call printed %q", out)
	}

	if out := m.must("call", "events.echo", "message=one"); !strings.Contains(out, "one") {
		t.Fatalf("over SSE: %q", out)
	}
	if n := d.drop(); n == 0 {
		t.Fatal("no event stream was open to drop")
	}
	// The drop may cost the first call after it (it can land before the
	// client notices); it must cost no more than that, with a clear error.
	r = m.run(nil, "call", "events.echo", "message=two")
	if r.code != 0 {
		if r.code != exit.Upstream || !strings.Contains(r.stderr, "server events is unavailable") {
			t.Fatalf("after the drop: exit %d, stderr %q", r.code, r.stderr)
		}
		t.Logf("the first call after the drop failed: %s", strings.TrimSpace(r.stderr))
		r = m.run(nil, "call", "events.echo", "message=two")
	}
	if r.code != 0 || !strings.Contains(r.stdout, "two") {
		t.Fatalf("the call after the drop did not reconnect: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}
