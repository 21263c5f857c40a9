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

// A relayed request for input that came during a call ends with the call,
// over each transport: the person is not left with a form nobody waits
// for. Over streamable HTTP the request comes on the call's stream; over
// stdio and SSE nothing ties it to the call, and it ends once no call is
// in flight.
func TestRelay_endsWithCall(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, tool string
		ep         func(t testing.TB) manifests.Endpoint
	}{
		{"stdio", "confirm", func(t testing.TB) manifests.Endpoint { return elicitStdio(t, nil) }},
		{"http", "confirm", func(t testing.TB) manifests.Endpoint {
			ts := httptest.NewServer(server.NewStreamableHTTPServer(elicitServer()))
			t.Cleanup(ts.Close)
			return manifests.Endpoint{ID: "elicit", URL: ts.URL + "/mcp", Type: "http"}
		}},
		// mcp-go's SSE server cannot ask for input; server-everything can.
		{"sse", "trigger-elicitation-request", everythingOn("sse", "sse")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ended := make(chan struct{})
			r := &relayRecorder{answer: `{"action":"decline"}`, during: func(ctx context.Context) {
				<-ctx.Done()
				close(ended)
			}}
			u := connect(t, tt.ep(t), Options{RelayElicitation: r.relay})
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for len(r.requests()) == 0 {
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			if res, err := u.CallTool(ctx, tt.tool, nil); err == nil {
				t.Fatalf("a cancelled call succeeded: %s", res.Raw)
			}
			select {
			case <-ended:
			case <-time.After(5 * time.Second):
				t.Fatal("the relayed request for input outlived its call")
			}
		})
	}
}

// A relayed request for input that came while no call was in flight is
// not ended by the calls that come and go after it.
func TestRelay_outsideCallsOutlivesThem(t *testing.T) {
	t.Parallel()
	var c callsInFlight
	if c.quiet() != nil {
		t.Fatal("quiet with no call in flight")
	}
	end := c.begin()
	q := c.quiet()
	second := c.begin()
	end()
	end() // a second end is nothing
	select {
	case <-q:
		t.Fatal("quiet while a call is in flight")
	default:
	}
	second()
	select {
	case <-q:
	default:
		t.Fatal("not quiet once the calls ended")
	}
	if c.quiet() != nil {
		t.Error("quiet again with no call in flight")
	}
}
