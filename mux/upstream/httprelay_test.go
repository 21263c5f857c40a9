package upstream

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/manifests"
)

// A relayed request for input over streamable HTTP waits for its answer
// as long as the call does: a person may take more than the 30 s mcp-go
// gives a handler of a server's request.
func TestRelay_httpSlowAnswer(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(server.NewStreamableHTTPServer(elicitServer()))
	t.Cleanup(ts.Close)
	r := &relayRecorder{answer: `{"action":"accept","content":{}}`, during: func(ctx context.Context) {
		select {
		case <-time.After(32 * time.Second):
		case <-ctx.Done():
		}
	}}
	u := connect(t, manifests.Endpoint{ID: "elicit", URL: ts.URL + "/mcp", Type: "http"}, Options{RelayElicitation: r.relay})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := u.CallTool(ctx, "confirm", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); !strings.Contains(got, `"accept"`) {
		t.Errorf("the tool got %q, want the relayed accept", got)
	}
}

// A relayed request for input that came on a call's stream ends with the
// call: the person is not left with a form nobody waits for.
func TestRelay_httpEndsWithCall(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(server.NewStreamableHTTPServer(elicitServer()))
	t.Cleanup(ts.Close)
	ended := make(chan struct{})
	r := &relayRecorder{answer: `{"action":"decline"}`, during: func(ctx context.Context) {
		<-ctx.Done()
		close(ended)
	}}
	u := connect(t, manifests.Endpoint{ID: "elicit", URL: ts.URL + "/mcp", Type: "http"}, Options{RelayElicitation: r.relay})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(r.requests()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := u.CallTool(ctx, "confirm", nil); err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the relayed request for input outlived its call")
	}
}
