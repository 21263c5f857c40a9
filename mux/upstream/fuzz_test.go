package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// fuzzSecret is in the redaction set of every fuzzed connection, and in
// the seeds' answers.
const fuzzSecret = "k-secret-4242"

const (
	// fuzzDeadline bounds each fuzzed call: time for one poll of a task
	// (minPollInterval), kept short so that the fuzzer runs many inputs.
	fuzzDeadline = 150 * time.Millisecond
	// fuzzMargin is how late after its deadline a call may return.
	fuzzMargin = time.Second
)

// fuzzTaskCaps are the capabilities of the stand-in server: tools, and
// task-augmented tools/call.
const fuzzTaskCaps = `{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}`

// answers are what the stand-in server answers: the JSON-RPC response
// object, without jsonrpc and id, to tools/call, tasks/get and
// tasks/result, and one JSON-RPC notification it sends before each of
// those answers, in which "@token" stands for the call's progress token.
type answers struct {
	call, get, result, note []byte
}

// scripted is a transport.Interface that stands in for a server: it
// answers the start of a connection as a server that takes tasks does,
// and the rest from its answers. An answer that is not a JSON-RPC response
// fails the request, as the streamable HTTP transport fails one whose body
// it cannot decode.
type scripted struct {
	a      answers
	mu     sync.Mutex
	notify func(mcp.JSONRPCNotification)
	token  string
}

var _ transport.Interface = (*scripted)(nil)

func (s *scripted) Start(context.Context) error                                     { return nil }
func (s *scripted) SendNotification(context.Context, mcp.JSONRPCNotification) error { return nil }
func (s *scripted) Close() error                                                    { return nil }
func (s *scripted) GetSessionId() string                                            { return "" }

func (s *scripted) SetNotificationHandler(f func(mcp.JSONRPCNotification)) {
	s.mu.Lock()
	s.notify = f
	s.mu.Unlock()
}

func (s *scripted) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	var answer []byte
	switch req.Method {
	case string(mcp.MethodInitialize):
		answer = []byte(`{"result":{"protocolVersion":"2025-11-25","capabilities":` + fuzzTaskCaps + `,"serverInfo":{"name":"fuzz","version":"1"}}}`)
	case string(mcp.MethodServerDiscover):
		answer = []byte(`{"result":{"supportedVersions":["` + Modern + `"],"capabilities":` + fuzzTaskCaps + `}}`)
	case "tasks/cancel":
		answer = []byte(`{"result":{}}`)
	case string(mcp.MethodToolsCall):
		s.takeToken(req.Params)
		answer = s.a.call
	case "tasks/get":
		answer = s.a.get
	case "tasks/result":
		answer = s.a.result
	default:
		answer = []byte(`{"error":{"code":-32601,"message":"no"}}`)
	}
	if req.Method == string(mcp.MethodToolsCall) || strings.HasPrefix(req.Method, "tasks/") {
		s.sendNote()
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(answer, &resp); err != nil {
		return nil, fmt.Errorf("failed to unmarshal response: %w", err)
	}
	resp.JSONRPC, resp.ID = mcp.JSONRPC_VERSION, req.ID
	return &resp, nil
}

// takeToken remembers the progress token a tools/call carries.
func (s *scripted) takeToken(params any) {
	raw, _ := json.Marshal(params)
	var p struct {
		Meta struct {
			ProgressToken string `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(raw, &p)
	s.mu.Lock()
	s.token = p.Meta.ProgressToken
	s.mu.Unlock()
}

// sendNote delivers the notification, decoded as the transports decode
// what a server sends; one they would drop is dropped.
func (s *scripted) sendNote() {
	s.mu.Lock()
	notify, token := s.notify, s.token
	s.mu.Unlock()
	if notify == nil || len(s.a.note) == 0 {
		return
	}
	line := bytes.ReplaceAll(s.a.note, []byte(`"@token"`), []byte(`"`+token+`"`))
	var base struct {
		ID     *mcp.RequestId `json:"id"`
		Method string         `json:"method"`
	}
	var n mcp.JSONRPCNotification
	if json.Unmarshal(line, &base) != nil || base.Method == "" || base.ID != nil || json.Unmarshal(line, &n) != nil {
		return
	}
	notify(n)
}

// fuzzConn is a connection to the stand-in server, started as Connect
// starts one: the handshake, or server/discover when modern.
func fuzzConn(t *testing.T, a answers, modern bool) *conn {
	secrets := new(redact.Set)
	secrets.Add(fuzzSecret)
	opts := Options{Secrets: secrets}.withDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u := newConn(ctx, "fuzz", manifests.TransportHTTP, opts)
	u.secret = opts.secretsFor(manifests.Endpoint{ID: "fuzz"})
	u.revision = protocolVersion
	if modern {
		u.revision = Modern
		u.modern = newModern(Modern, u.capabilities(), opts)
	}
	tr := &scripted{a: a}
	u.tr = tr
	u.c = u.newClient(tr)
	if err := u.handshake(ctx, opts, func() {}); err != nil {
		u.Close()
		t.Errorf("connect (modern %v): %v", modern, err)
		return nil
	}
	return u
}

// fuzzCase is one way of calling: on the handshake or 2026-07-28, as a
// task or plainly, asking for progress or not.
type fuzzCase struct {
	modern, task, progress bool
}

func (c fuzzCase) String() string {
	return fmt.Sprintf("modern %v, task %v, progress %v", c.modern, c.task, c.progress)
}

// fuzzCall makes one call of c and checks what it gives.
func fuzzCall(t *testing.T, a answers, c fuzzCase) {
	u := fuzzConn(t, a, c.modern)
	if u == nil {
		return
	}
	defer u.Close()
	ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
	defer cancel()
	if c.task {
		ctx = WithTaskSupport(ctx, catalog.TaskRequired)
	}
	var mu sync.Mutex
	var got []Progress
	if c.progress {
		ctx = WithCallHooks(ctx, &CallHooks{OnProgress: func(p Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		}})
	}
	type outcome struct {
		res *catalog.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := u.CallTool(ctx, "research", json.RawMessage(`{"topic":"`+fuzzSecret+`"}`))
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(fuzzDeadline + fuzzMargin):
		t.Errorf("%s: CallTool has not returned %v after its deadline", c, fuzzMargin)
		return
	}
	if (o.res == nil) == (o.err == nil) {
		t.Errorf("%s: CallTool = %v, %v; want a result or an error", c, o.res, o.err)
	}
	if o.err != nil && strings.Contains(o.err.Error(), fuzzSecret) {
		t.Errorf("%s: the error shows the secret: %v", c, o.err)
	}
	mu.Lock()
	defer mu.Unlock()
	checkProgress(t, c, got)
}

// checkProgress: each report is above the last, and none shows the secret.
func checkProgress(t *testing.T, c fuzzCase, got []Progress) {
	for i, p := range got {
		if i > 0 && !(p.Progress > got[i-1].Progress) {
			t.Errorf("%s: progress %v after %v", c, p.Progress, got[i-1].Progress)
		}
		if strings.Contains(p.Message, fuzzSecret) {
			t.Errorf("%s: progress shows the secret: %q", c, p.Message)
		}
	}
}

// FuzzCallAnswers calls a tool of a server that answers what the fuzzer
// gives, in every way CallTool calls: on the handshake and on 2026-07-28,
// plainly and as a task, with and without progress. Whatever the server
// answers, the call never panics, returns by its deadline, gives a result
// or an error, hands over progress that only increases, and shows none of
// the connection's secrets.
func FuzzCallAnswers(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s.call, s.get, s.result, s.note)
	}
	f.Fuzz(func(t *testing.T, call, get, result, note []byte) {
		a := answers{call: call, get: get, result: result, note: note}
		var wg sync.WaitGroup
		for _, modern := range []bool{false, true} {
			for _, task := range []bool{false, true} {
				for _, progress := range []bool{false, true} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						fuzzCall(t, a, fuzzCase{modern: modern, task: task, progress: progress})
					}()
				}
			}
		}
		wg.Wait()
	})
}

// fuzzSeeds are valid and invalid shapes of each answer.
func fuzzSeeds() []answers {
	const (
		done      = `{"result":{"content":[{"type":"text","text":"done"}]}}`
		working   = `{"result":{"task":{"taskId":"t1","status":"working","pollInterval":0}}}`
		completed = `{"result":{"taskId":"t1","status":"completed"}}`
		progress  = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"@token","progress":1,"total":3,"message":"step k-secret-4242"}}`
		status    = `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working","statusMessage":"k-secret-4242"}}`
	)
	elicit := `{"method":"elicitation/create","params":{"message":"k-secret-4242","requestedSchema":{"type":"object","properties":{"x":{"type":"string","default":"y"}}}}}`
	rounds := func(state string) string {
		return `{"result":{"resultType":"input_required","inputRequests":{"a":` + elicit + `,"b":` + elicit + `},"requestState":` + state + `}}`
	}
	seeds := [][4]string{
		{done, completed, done, progress},
		{working, completed, done, progress},
		{working, completed, done, status},
		{working, `{"result":{"taskId":"t1","status":"working","pollInterval":1e308}}`, done, status},
		{`{"result":{"task":{"taskId":"t1","status":"working","pollInterval":-5}}}`, `{"result":{"taskId":"t1","status":"input_required"}}`, done, ``},
		{`{"result":{"task":{"taskId":7,"status":"working"}}}`, completed, done, progress},
		{`{"result":{"task":{"taskId":"","status":"working"}}}`, completed, done, progress},
		{`{"result":{"task":"t1"}}`, completed, done, progress},
		{`{"result":{"task":null,"content":[]}}`, completed, done, progress},
		{working, `{"result":{"taskId":"t1","status":"failed","statusMessage":"k-secret-4242"}}`, `{"result":{"content":[],"isError":false}}`, status},
		{working, `{"result":{"taskId":"t1","status":"cancelled"}}`, done, progress},
		{working, `{"result":{"taskId":"k-secret-4242"}}`, done, progress},
		{working, `{"result":{"status":"working k-secret-4242","pollInterval":"soon"}}`, done, progress},
		{working, completed, `{"result":{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"},"x":1}}}`, progress},
		{working, completed, `{"result":{"resultType":"input_required","inputRequests":{}}}`, progress},
		{`{"result":{"resultType":"later"}}`, completed, done, progress},
		{`{"result":{"resultType":7}}`, completed, done, progress},
		{`{"result":{"content":[],"ttlMs":-1,"cacheScope":"k-secret-4242"}}`, completed, done, progress},
		{`{"error":{"code":-32000,"message":"bad k-secret-4242","data":{"k":"k-secret-4242"}}}`, completed, done, progress},
		{working, `{"error":{"code":-32602,"message":"k-secret-4242"}}`, `{"error":{"code":1,"message":"k-secret-4242"}}`, status},
		{`{"result":`, `null`, `[]`, `{`},
		{`{"result":"text"}`, `{"result":[]}`, `{}`, `{"method":"notifications/progress","id":1,"params":{}}`},
		{`{"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":[1]}}}}`, completed, done, progress},
		{`{"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"url","url":"https://x.example/k-secret-4242","elicitationId":"e"}}}}}`, completed, done, progress},
		{`{"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"inputRequests":` + elicit + `}}}}}`, completed, done, progress},
		{`{"result":{"progress":1e17}}`, completed, done, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"@token","progress":1e17}}`},
		{working, completed, done, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":"1"}}`},
		{working, completed, done, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`},
		{working, completed, done, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"k-secret-4242"}}`},
	}
	for _, state := range []string{`"opaque k-secret-4242"`, `42`, `1e400`, `true`, `null`, `[1,{"a":[]}]`, `{"a":{"b":[null]}}`} {
		seeds = append(seeds, [4]string{rounds(state), completed, done, progress})
	}
	out := make([]answers, len(seeds))
	for i, s := range seeds {
		out[i] = answers{call: []byte(s[0]), get: []byte(s[1]), result: []byte(s[2]), note: []byte(s[3])}
	}
	return out
}
