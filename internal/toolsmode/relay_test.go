package toolsmode

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// relayEngine is newEngine with a relay's hooks on its connections.
func relayEngine(t *testing.T, relay *Relay, servers []*catalog.ServerSurface, eps ...manifests.Endpoint) *mux.Engine {
	t.Helper()
	endpoints := map[string]manifests.Endpoint{}
	for _, ep := range eps {
		endpoints[manifests.CanonicalID(ep.ID)] = ep
	}
	s := &catalog.Surface{Agent: "tester", Mode: catalog.ModeTools, Servers: servers}
	eng := mux.NewEngine(s, endpoints, os.LookupEnv, relay.Upstream(upstream.Options{}))
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// goClient serves s over pipes and connects the official Go SDK's client
// to it with opts, asking for protocol revision version ("" is the
// SDK's newest, 2026-07-28); the session is closed when the test ends.
func goClient(t *testing.T, s *Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	toServer, fromServer, done := servePipes(context.Background(), s)
	c := mcp.NewClient(&mcp.Implementation{Name: "relay-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: fromServer, Writer: toServer}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("ServeStdio did not return within 30s of its input closing")
		}
	})
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// A client that declares elicitation gets server-everything's form, as
// the server wrote it, and its answer is what the tool reports. On the
// handshake the form is a request to the client; a client on 2026-07-28,
// which takes requests for input only inside results, gets it in an
// input-required result (multi-round-trip requests), and the official Go
// SDK's client answers it and makes the call again.
func TestServer_RelaysElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			relay := NewRelay()
			eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "everything", Tools: []string{"trigger-elicitation-request", "echo"}}}, testenv.EverythingStdio(t))
			s, _ := newServer(t, eng, Options{Relay: relay})
			var mu sync.Mutex
			var asked []*mcp.ElicitParams
			cs := goClient(t, s, version, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params)
				mu.Unlock()
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7}}, nil
			}})
			if v := cs.InitializeResult().ProtocolVersion; v != version {
				t.Fatalf("the session speaks %s, want %s", v, version)
			}
			got := callText(t, cs, "everything__trigger_elicitation_request", nil)
			for _, want := range []string{"User provided the requested information", "Name: Ada Lovelace", "Agreed to terms: true", "Favorite Integer: 7"} {
				if !strings.Contains(got, want) {
					t.Errorf("result lacks %q:\n%s", want, got)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 {
				t.Fatalf("the client was asked %d times, want 1", len(asked))
			}
			schema, _ := json.Marshal(asked[0].RequestedSchema)
			if asked[0].Message != "everything: Please provide inputs for the following fields:" || !strings.Contains(string(schema), `"legacyTitledEnum"`) ||
				!strings.Contains(string(schema), `"required":["name"]`) {
				t.Errorf("the client was asked %q with %s", asked[0].Message, schema)
			}
			// A call that asks for nothing is answered in one round, and
			// nothing is kept of the calls that ended.
			if got := callText(t, cs, "everything__echo", map[string]any{"message": "hi"}); got != "Echo: hi" {
				t.Errorf("echo = %q", got)
			}
			s.rounds.mu.Lock()
			defer s.rounds.mu.Unlock()
			if len(s.rounds.calls) != 0 {
				t.Errorf("%d calls are still kept after their results", len(s.rounds.calls))
			}
		})
	}
}

// The time a person takes to answer a relayed request for input is not
// the call's silence: a form answered after more than the call's time
// limit still reaches the server, on the handshake and in rounds.
func TestServer_RelayedAnswerIsNoSilence(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			relay := NewRelay()
			eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "everything", Tools: []string{"trigger-elicitation-request"}}}, testenv.EverythingStdio(t))
			s, _ := newServer(t, eng, Options{Relay: relay, CallTimeout: 2 * time.Second})
			cs := goClient(t, s, version, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				time.Sleep(3500 * time.Millisecond)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace"}}, nil
			}})
			if got := callText(t, cs, "everything__trigger_elicitation_request", nil); !strings.Contains(got, "Name: Ada Lovelace") {
				t.Errorf("result = %s, want the answer given after 3.5 s under a 2 s limit", got)
			}
		})
	}
}

// A round that names no call waiting for input, or answers a request that
// is not open, gets a tool error, not the upstream's result.
func TestServer_RoundsRefuseStrangers(t *testing.T) {
	relay := NewRelay()
	eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "everything", Tools: []string{"trigger-elicitation-request"}}}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{Relay: relay})
	cs := goClient(t, s, "", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger_elicitation_request", RequestState: "mcp-0123"})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "the requestState names no call of this tool waiting for input") {
		t.Errorf("an unknown requestState: %+v, %v", res, err)
	}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger_elicitation_request"})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("first round: %+v, %v; want one request for input", first, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger_elicitation_request", RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"input-99": &mcp.ElicitResult{Action: "decline"}}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "not open") {
		t.Errorf("an answer to no open request: %+v, %v", res, err)
	}
	// That tool error ended the call.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger_elicitation_request", RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"input-1": &mcp.ElicitResult{Action: "decline"}}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "names no call") {
		t.Errorf("a round of the refused call: %+v, %v", res, err)
	}
	again, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger_elicitation_request"})
	if err != nil || !again.NeedsInput() || again.RequestState == first.RequestState {
		t.Fatalf("a new call: %+v, %v; want a request for input under a new requestState", again, err)
	}
	var id string
	for k := range again.InputRequests {
		id = k
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger_elicitation_request", RequestState: again.RequestState,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}}})
	if err != nil || res.NeedsInput() || !strings.Contains(toolText(res), "User declined") {
		t.Errorf("the answered round: %+v, %v; want the server to see a decline", res, err)
	}
}

func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// A client that declares no elicitation is not asked: the old rule
// answers (server-everything's form needs a name nobody gave, so it is
// declined), on the handshake and on 2026-07-28 alike. Without a relay
// nothing changes either.
func TestServer_ElicitationWithoutTheCapability(t *testing.T) {
	answers := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("the client was asked for input")
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}}
	for _, tt := range []struct {
		name    string
		relay   *Relay
		version string
		opts    *mcp.ClientOptions
	}{
		{"relay", NewRelay(), "2025-11-25", nil},
		{"relay/2026-07-28", NewRelay(), "", nil},
		{"no relay/2026-07-28", nil, "", answers},
		{"no relay", nil, "2025-11-25", answers},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var eng *mux.Engine
			servers := []*catalog.ServerSurface{{ID: "everything", Tools: []string{"trigger-elicitation-request"}}}
			if tt.relay != nil {
				eng = relayEngine(t, tt.relay, servers, testenv.EverythingStdio(t))
			} else {
				eng = newEngine(t, servers, testenv.EverythingStdio(t))
			}
			s, _ := newServer(t, eng, Options{Relay: tt.relay})
			cs := goClient(t, s, tt.version, tt.opts)
			if got := callText(t, cs, "everything__trigger_elicitation_request", nil); !strings.Contains(got, "User declined") {
				t.Errorf("result = %s, want the server to see a decline", got)
			}
		})
	}
}

// logBook keeps the log messages a client gets.
type logBook struct {
	mu   sync.Mutex
	msgs []*mcp.LoggingMessageParams
}

func (b *logBook) handler(_ context.Context, req *mcp.LoggingMessageRequest) {
	b.mu.Lock()
	b.msgs = append(b.msgs, req.Params)
	b.mu.Unlock()
}

func (b *logBook) take() []*mcp.LoggingMessageParams {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.msgs
	b.msgs = nil
	return out
}

func logLevels(msgs []*mcp.LoggingMessageParams) string {
	var ls []string
	for _, m := range msgs {
		ls = append(ls, string(m.Level))
	}
	return strings.Join(ls, ",")
}

// untilLogged calls the fake's log tool until the client gets its
// messages at want's levels (the level reaches the upstream on a
// goroutine of its own, and the messages the client on another).
func untilLogged(t *testing.T, cs *mcp.ClientSession, book *logBook, want string) []*mcp.LoggingMessageParams {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		callText(t, cs, "fake__log", map[string]any{"text": "hello"})
		time.Sleep(50 * time.Millisecond)
		got := book.take()
		if logLevels(got) == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client got %q, want %q", logLevels(got), want)
		}
	}
}

// With a relay the server declares logging; an upstream's log messages
// reach the client after it sets a level, under the server's id and the
// upstream's logger, at that level and above; the level reaches the
// upstream too (the fake logs only errors until told otherwise).
func TestServer_RelaysLogs(t *testing.T) {
	relay := NewRelay()
	eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "fake", Tools: []string{"log"}}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, eng, Options{Relay: relay})
	var book logBook
	cs := goClient(t, s, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: book.handler})
	if caps := cs.InitializeResult().Capabilities; caps.Logging == nil {
		t.Fatalf("capabilities = %+v, want logging", caps)
	}
	callText(t, cs, "fake__log", nil)
	time.Sleep(200 * time.Millisecond)
	if got := book.take(); len(got) != 0 {
		t.Errorf("before setLevel the client got %q", logLevels(got))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	got := untilLogged(t, cs, &book, "debug,info,warning,error")
	if m := got[0]; m.Logger != "fake/fake-logger" || m.Data != "debug hello" {
		t.Errorf("message = %+v", m)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	untilLogged(t, cs, &book, "warning,error")
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "loud"}); err == nil || !strings.Contains(err.Error(), `"loud" is not a log level`) {
		t.Errorf("setLevel loud: %v", err)
	}
}

// A URL request goes to a client that declared URL mode, and the rule
// declines it for a client that declared forms only.
func TestServer_RelaysURLElicitation(t *testing.T) {
	relay := NewRelay()
	eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "everything", Tools: []string{"trigger-url-elicitation"}}}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{Relay: relay})
	var asked []*mcp.ElicitParams
	var mu sync.Mutex
	urlCaps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	cs := goClient(t, s, "2025-11-25", &mcp.ClientOptions{Capabilities: urlCaps,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	args := map[string]any{"url": "https://example.com/approve", "message": "Approve the transfer"}
	if got := callText(t, cs, "everything__trigger_url_elicitation", args); !strings.Contains(got, "User completed the URL elicitation flow") {
		t.Errorf("result = %s, want the client's accept", got)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Mode != "url" || asked[0].URL != "https://example.com/approve" || asked[0].Message != "everything: Approve the transfer" || asked[0].ElicitationID == "" {
		t.Errorf("the client was asked %+v", asked)
	}
	mu.Unlock()
	_ = cs.Close()

	formOnly := goClient(t, s, "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("a client without URL mode was asked")
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	if got := callText(t, formOnly, "everything__trigger_url_elicitation", args); !strings.Contains(got, "User declined to open the URL") {
		t.Errorf("result = %s, want the rule's decline", got)
	}
}

// Levels below the client's are not sent, whatever an upstream sends
// (one that ignores setLevel, here the relay's hook called directly);
// nothing is sent before the client sets a level.
func TestRelay_FiltersByTheClientsLevel(t *testing.T) {
	relay := NewRelay()
	eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "fake", Tools: []string{"echo"}}}, testenv.FakeServer(t, testenv.ModeDefault))
	s, _ := newServer(t, eng, Options{Relay: relay})
	var book logBook
	cs := goClient(t, s, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: book.handler})
	hook := relay.Upstream(upstream.Options{}).OnLog
	logAll := func() {
		for _, level := range []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
			hook(upstream.LogMessage{Server: "notes", Level: level, Data: json.RawMessage(`{"n":1}`)})
		}
	}
	logAll()
	// Let the queue drain before the level is set.
	for len(relay.logs) > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	if got := book.take(); len(got) != 0 {
		t.Errorf("before setLevel the client got %q", logLevels(got))
	}
	logAll()
	deadline := time.Now().Add(10 * time.Second)
	var got []*mcp.LoggingMessageParams
	for len(got) < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		got = append(got, book.take()...)
	}
	if logLevels(got) != "error,critical,alert,emergency" || got[0].Logger != "notes" {
		t.Errorf("the client got %q from %q", logLevels(got), got[0].Logger)
	}
	if data, _ := json.Marshal(got[0].Data); string(data) != `{"n":1}` {
		t.Errorf("data = %s", data)
	}
}

// Log messages waiting for a client that does not take them are bounded in
// bytes as well as in number: a server sending large ones cannot make
// mcp serve hold hundreds of them.
func TestRelay_logQueueBytes(t *testing.T) {
	r := NewRelay()
	r.ss = &mcp.ServerSession{} // a client is served, and takes nothing
	data, _ := json.Marshal(strings.Repeat("x", 1<<20))
	for range logQueue {
		r.log(upstream.LogMessage{Server: "fake", Level: "info", Data: data})
	}
	total := 0
	for len(r.logs) > 0 {
		total += len((<-r.logs).Data)
	}
	if total > logQueueBytes {
		t.Errorf("%d bytes of log messages wait for the client, want at most %d", total, logQueueBytes)
	}
}

// A plain call of a tool that runs as a task upstream asks for input under
// the upstream's task; the client, which made no task, gets the request
// without the task's _meta.
func TestServer_RelaysTaskRequestWithoutItsTask(t *testing.T) {
	relay := NewRelay()
	eng := relayEngine(t, relay, []*catalog.ServerSurface{{ID: "everything", Tools: []string{"simulate-research-query"}}}, testenv.EverythingStdio(t))
	s, _ := newServer(t, eng, Options{Relay: relay})
	var mu sync.Mutex
	var asked []*mcp.ElicitParams
	cs := goClient(t, s, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params)
		mu.Unlock()
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	got := callText(t, cs, "everything__simulate_research_query", map[string]any{"topic": "python", "ambiguous": true})
	if !strings.Contains(got, "Research Report: python") {
		t.Errorf("result = %.300q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("the client was asked %d times, want once", len(asked))
	}
	if _, ok := asked[0].Meta[relatedTaskKey]; ok {
		t.Errorf("the request names the upstream's task: %v", asked[0].Meta)
	}
}

// A task's request names the task by the client's id when the client
// started it through the task relay, and not at all otherwise; other
// _meta keys stay.
func TestRelay_taskMeta(t *testing.T) {
	r := NewRelay()
	r.served.ours = func(server, id string) (string, bool) { return "c-1", server == "everything" && id == "up-1" }
	related := func(id string) map[string]any { return map[string]any{"taskId": id} }
	for _, tt := range []struct {
		in, want mcp.Meta
	}{
		{nil, nil},
		{mcp.Meta{"k": "v"}, mcp.Meta{"k": "v"}},
		{mcp.Meta{relatedTaskKey: related("up-1"), "k": "v"}, mcp.Meta{relatedTaskKey: map[string]string{"taskId": "c-1"}, "k": "v"}},
		{mcp.Meta{relatedTaskKey: related("up-2"), "k": "v"}, mcp.Meta{"k": "v"}},
		{mcp.Meta{relatedTaskKey: related("up-2")}, nil},
		{mcp.Meta{relatedTaskKey: 7}, nil},
	} {
		got, _ := json.Marshal(r.taskMeta("everything", tt.in))
		want, _ := json.Marshal(tt.want)
		if string(got) != string(want) {
			t.Errorf("taskMeta(%v) = %s, want %s", tt.in, got, want)
		}
	}
}
