package upstream

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// floodOfRequests is elicitServer's "flood": n requests for input in a
// row, each a bare confirmation that the rule declines.
func floodOfRequests(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := req.GetInt("n", 1)
	for range n {
		_, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{
			Params: mcp.ElicitationParams{Message: "Again?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}})
		if err != nil {
			return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
		}
	}
	return mcp.NewToolResultText("asked " + strconv.Itoa(n) + " times"), nil
}

// A server that asks for input thousands of times is told of in full once;
// the rest are counted, a line per interval (and one more as the
// connection closes), in what OnElicitation hears and in the log.
func TestElicit_floodIsCounted(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ep := manifests.Endpoint{ID: "elicit", Command: exe,
		Env: map[string]string{elicitServerEnv: "1", "GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")}}
	var rec journal[Elicitation]
	var logs testenv.SyncBuffer
	u := connect(t, ep, Options{OnElicitation: rec.add, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const n = 2000
	if got := text(t, call(t, u, "flood", `{"n":2000}`)); got != "asked 2000 times" {
		t.Fatalf("flood: %q", got)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	evs := rec.all()
	if len(evs) == 0 || !strings.HasPrefix(evs[0].String(), `server elicit asked for input ("Again?"); declined`) {
		t.Fatalf("the first request is not told in full: %v", evs)
	}
	more := regexp.MustCompile(`^server elicit: (\d+) more requests for input declined in the last \S+$`)
	counted := 0
	for _, e := range evs[1:] {
		m := more.FindStringSubmatch(e.String())
		if m == nil {
			t.Fatalf("%d lines for %d requests; %q is not a count", len(evs), n, e.String())
		}
		c, _ := strconv.Atoi(m[1])
		counted += c
	}
	if counted != n-1 || len(evs) > 12 {
		t.Errorf("%d lines count %d more requests, want a few lines counting %d", len(evs), counted, n-1)
	}
	if lines := strings.Count(logs.String(), "request"); lines > 12 {
		t.Errorf("the log has %d lines about requests for input for %d of them, want a few", lines, n)
	}
}

// A kind told in full a few times is counted after those.
func TestFloodGate_first(t *testing.T) {
	t.Parallel()
	var told []string
	g := floodGate{first: map[string]int{"tool": 10}, summary: func(kind string, n int, _ time.Duration) {
		told = append(told, kind+" "+strconv.Itoa(n))
	}}
	full := 0
	for range 30 {
		if g.admit("tool") {
			full++
		}
	}
	for range 5 {
		if g.admit("decline") {
			full++
		}
	}
	g.close()
	if full != 11 || strings.Join(told, ",") != "decline 4,tool 20" {
		t.Errorf("%d told in full, then %v; want 11, then [decline 4 tool 20]", full, told)
	}
	if g.once("capped") != true || g.once("capped") != false {
		t.Error("once is true the first time only")
	}
}

// A server over streamable HTTP that sends request after request the
// connection does not answer (sampling) is logged once, then counted.
func TestFlood_unansweredRequestsLogOnce(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("sampler", "1.0.0", server.WithToolCapabilities(true))
	s.EnableSampling()
	const n = 300
	s.AddTool(mcp.NewTool("sample"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		failed := 0
		for range n {
			if _, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{}); err != nil {
				failed++
			}
		}
		return mcp.NewToolResultText(strconv.Itoa(failed) + " failed"), nil
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	var logs testenv.SyncBuffer
	u := connect(t, manifests.Endpoint{ID: "sampler", URL: ts.URL + "/mcp", Type: "http"}, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if got := text(t, call(t, u, "sample", "")); got != strconv.Itoa(n)+" failed" {
		t.Fatalf("sample: %q", got)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if c := strings.Count(out, `msg="error handling request"`); c != 1 || !strings.Contains(out, strconv.Itoa(n-1)+" more") {
		t.Errorf("%d requests left %d lines about them in the log, want one and a count of the rest:\n%.2000s", n, c, out)
	}
}
