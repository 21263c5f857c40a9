package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsh/mcp/manifests"
)

// relayRecorder is an ElicitRelay that answers with a fixed result and
// keeps what it was asked.
type relayRecorder struct {
	mu     sync.Mutex
	asked  []json.RawMessage
	server []string
	answer string // "" declines to relay (ok false)
	err    error
	// during, if set, runs inside the relay before it answers.
	during func(ctx context.Context)
}

func (r *relayRecorder) relay(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, bool, error) {
	r.mu.Lock()
	r.asked = append(r.asked, params)
	r.server = append(r.server, server)
	r.mu.Unlock()
	if r.during != nil {
		r.during(ctx)
	}
	if r.answer == "" && r.err == nil {
		return nil, false, nil
	}
	return json.RawMessage(r.answer), true, r.err
}

func (r *relayRecorder) requests() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.asked...)
}

func elicitStdio(t testing.TB, env map[string]string) manifests.Endpoint {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{elicitServerEnv: "1", "GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")}
	for k, v := range env {
		e[k] = v
	}
	return manifests.Endpoint{ID: "elicit", Command: exe, Env: e}
}

// A relayed request for input is answered by the relay, whose answer the
// server gets as it was given; the rule answers what the relay does not
// take, and OnElicitation hears only of those.
func TestElicit_relay(t *testing.T) {
	t.Parallel()
	var rec journal[Elicitation]
	rel := &relayRecorder{answer: `{"action":"accept","content":{"name":"Grace Hopper","age":85}}`}
	u := connect(t, elicitStdio(t, nil), Options{OnElicitation: rec.add, RelayElicitation: rel.relay})

	var got struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal([]byte(text(t, call(t, u, "profile", ""))), &got); err != nil {
		t.Fatal(err)
	}
	if got.Action != "accept" || string(got.Content) != `{"age":85,"name":"Grace Hopper"}` {
		t.Errorf("the server got %s %s, want the relay's answer", got.Action, got.Content)
	}
	asked := rel.requests()
	if len(asked) != 1 || !strings.Contains(string(asked[0]), `"message":"Your profile,\nplease"`) ||
		!strings.Contains(string(asked[0]), `"requestedSchema":{`) || rel.server[0] != "elicit" {
		t.Errorf("the relay was asked %s by %v", asked, rel.server)
	}
	if evs := rec.all(); len(evs) != 0 {
		t.Errorf("OnElicitation heard of a relayed request: %+v", evs)
	}

	// Nobody to answer: the rule stands.
	rel.mu.Lock()
	rel.answer = ""
	rel.mu.Unlock()
	if txt := text(t, call(t, u, "confirm", "")); txt != `{"action":"decline"}` {
		t.Errorf("confirm: the server got %s", txt)
	}
	if evs := rec.all(); len(evs) != 1 || evs[0].Action != "decline" {
		t.Errorf("OnElicitation got %+v, want the rule's decline", evs)
	}
}

// What is relayed goes without the connection's secrets; a client that
// fails to answer, or answers nonsense, gives the server an error, not a
// made-up answer.
func TestElicit_relayRedactsAndFails(t *testing.T) {
	t.Parallel()
	const token = "tok-9f3a51c2"
	rel := &relayRecorder{err: errors.New("the client went away")}
	u := connect(t, elicitStdio(t, map[string]string{"ELICIT_TOKEN": token}), Options{RelayElicitation: rel.relay})
	res := call(t, u, "token", "")
	if txt := text(t, res); !strings.Contains(txt, "elicitation failed") || !strings.Contains(txt, "the client did not answer: the client went away") {
		t.Errorf("the server got %s, want the relay's failure", txt)
	}
	asked := rel.requests()
	if len(asked) != 1 || strings.Contains(string(asked[0]), token) || !strings.Contains(string(asked[0]), "Is [redacted] yours?") {
		t.Errorf("the relay was asked %s, want the token redacted", asked)
	}

	rel.mu.Lock()
	rel.err, rel.answer = nil, `{"action":"maybe"}`
	rel.mu.Unlock()
	if txt := text(t, call(t, u, "confirm", "")); !strings.Contains(txt, "elicitation failed") || !strings.Contains(txt, "not an elicitation result") {
		t.Errorf("the server got %s, want an error for a bad answer", txt)
	}
}

// The relay runs off the transport's read goroutine: while it waits for
// its client, the connection still carries other requests.
func TestElicit_relayDoesNotBlockReads(t *testing.T) {
	t.Parallel()
	var u *conn
	rel := &relayRecorder{answer: `{"action":"decline"}`}
	rel.during = func(ctx context.Context) {
		if _, err := u.ListTools(ctx); err != nil {
			t.Errorf("ListTools while a relay waits: %v", err)
		}
	}
	u = connect(t, elicitStdio(t, nil), Options{RelayElicitation: rel.relay})
	if txt := text(t, call(t, u, "profile", "")); txt != `{"action":"decline"}` {
		t.Errorf("the server got %s", txt)
	}
}

// server-everything sees the relay's answer over each transport, and
// offers its URL tool, since a relaying connection declares URL mode.
func TestElicit_relayEverything(t *testing.T) {
	t.Parallel()
	for _, tt := range everythingTransports {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rel := &relayRecorder{answer: `{"action":"accept","content":{"name":"Ada Lovelace","integer":7}}`}
			u := connect(t, tt.ep(t), Options{RelayElicitation: rel.relay})
			if _, ok := listTools(t, u)["trigger-url-elicitation"]; !ok {
				t.Error("server-everything lists no trigger-url-elicitation: URL elicitation was not declared")
			}
			res := call(t, u, "trigger-elicitation-request", "")
			if txt := string(res.Raw); res.IsError || !strings.Contains(txt, "Name: Ada Lovelace") || !strings.Contains(txt, "Favorite Integer: 7") {
				t.Errorf("result = %s, want the relayed answer", res.Raw)
			}
		})
	}
}
