package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

func TestConn_CallTool_fake(t *testing.T) {
	t.Parallel()
	ep := testenv.FakeServer(t, testenv.ModeDefault)
	ep.Cwd = t.TempDir()
	ep.Env["FAKE_GREETING"] = "hello from env"
	u := connect(t, ep, Options{})

	if got := text(t, call(t, u, "echo", `{"message":"hi"}`)); got != "Echo: hi" {
		t.Errorf("echo = %q", got)
	}
	if res := call(t, u, "fail", ""); !res.IsError {
		t.Errorf("fail: IsError = false in %s", res.Raw)
	}
	if got := text(t, call(t, u, "pwd", "")); got != ep.Cwd {
		t.Errorf("pwd = %q, want %q", got, ep.Cwd)
	}
	if got := text(t, call(t, u, "getenv", `{"name":"FAKE_GREETING"}`)); got != "hello from env" {
		t.Errorf("getenv FAKE_GREETING = %q", got)
	}
	if got := text(t, call(t, u, "getenv", `{"name":"PATH"}`)); got != os.Getenv("PATH") {
		t.Errorf("the environment is not inherited: PATH = %q", got)
	}

	// An unknown content type survives, byte for byte.
	res := call(t, u, "weird", "")
	if len(res.Content) != 1 || !strings.Contains(string(res.Content[0]), `"type":"`+testenv.WeirdContentType+`"`) {
		t.Errorf("weird content = %s", res.Raw)
	}
	// structuredContent keeps a number no float64 can hold.
	if res := call(t, u, "structured", ""); string(res.Structured) != `{"n":12345678901234567890}` {
		t.Errorf("structured = %s", res.Structured)
	}

	// A JSON-RPC error is an RPCError, and the connection stays usable.
	_, err := u.CallTool(context.Background(), "rpcerr", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "on purpose") {
		t.Fatalf("rpcerr: err = %v, want *RPCError", err)
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		t.Errorf("rpcerr gave an UnavailableError: %v", err)
	}
	if _, err := u.CallTool(context.Background(), "echo", json.RawMessage(`[1]`)); err == nil {
		t.Errorf("non-object arguments: no error")
	}
	call(t, u, "echo", `{"message":"still there"}`)
}

func TestConn_ListTools_rawSchema(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	tools := listTools(t, u)
	tl, ok := tools["schema"]
	if !ok {
		t.Fatalf("no tool schema among %d tools", len(tools))
	}
	for _, want := range []string{`"$schema":"https://json-schema.org/draft/2020-12/schema"`, `"anyOf"`, `"x-extra":true`, `"description":"top-level description"`} {
		if !strings.Contains(string(tl.InputSchema), want) {
			t.Errorf("InputSchema lacks %s: %s", want, tl.InputSchema)
		}
	}
	if !strings.Contains(string(tl.Raw), string(tl.InputSchema)) || tl.Description != "A tool with a rich schema" || tl.Server != "fake" {
		t.Errorf("tool = %+v", tl)
	}
	if _, ok := tools["echo"]; !ok {
		t.Errorf("no echo")
	}
}

func TestConn_ListTools_pages(t *testing.T) {
	t.Parallel()
	all := listTools(t, connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{}))
	paged := listTools(t, connect(t, testenv.FakeServer(t, testenv.ModePages), Options{}))
	if len(paged) != len(all) || len(all) < 10 {
		t.Errorf("two per page gave %d tools, one page %d", len(paged), len(all))
	}
}

func TestConn_ListTools_repeatedCursor(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeBadCursor), Options{})
	tools, err := u.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "a" || tools[1].Name != "b" {
		t.Errorf("tools = %+v, want a and b", tools)
	}
}

func TestConnect_exitAtStart(t *testing.T) {
	t.Parallel()
	var mirror testenv.SyncBuffer
	start := time.Now()
	_, err := Connect(context.Background(), testenv.FakeServer(t, testenv.ModeExit), Options{Stderr: &mirror})
	ue := asUnavailable(t, err)
	if !strings.Contains(ue.Error(), "exit status 7") || ue.Server != "fake" {
		t.Errorf("error = %v", ue)
	}
	lines := strings.Split(ue.Stderr, "\n")
	if lines[len(lines)-1] != "fatal: FAKE_API_KEY is not set" || len(lines) > tailLines+1 || strings.Contains(ue.Stderr, "starting 1\n") {
		t.Errorf("stderr tail = %q", ue.Stderr)
	}
	if !strings.Contains(mirror.String(), "starting 1\n") {
		t.Errorf("stderr was not mirrored: %q", mirror.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// A server that refuses initialize is reported with its reason, at once.
func TestConnect_initializeRefused(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, err := Connect(context.Background(), testenv.FakeServer(t, testenv.ModeInitError), Options{})
	ue := asUnavailable(t, err)
	if !strings.Contains(ue.Error(), "unsupported protocol version") || strings.Contains(ue.Error(), "exited") {
		t.Errorf("error = %v", ue)
	}
	if d := time.Since(start); d > exitReasonWait {
		t.Errorf("took %s", d)
	}
}

func TestConnect_missingCommand(t *testing.T) {
	t.Parallel()
	ep := testenv.FakeServer(t, testenv.ModeDefault)
	ep.Command = filepath.Join(t.TempDir(), "no-such-server")
	_, err := Connect(context.Background(), ep, Options{})
	asUnavailable(t, err)
}

func TestConnect_timeout(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, err := Connect(context.Background(), testenv.FakeServer(t, testenv.ModeSilent), Options{ConnectTimeout: 300 * time.Millisecond})
	ue := asUnavailable(t, err)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(ue.Error(), "300ms") {
		t.Errorf("error = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// A server that crashes mid-call fails that call, and every later one, at
// once, with its exit status and last words.
func TestConn_crashMidCall(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"crash", "crashorphan"} {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
			pid := u.proc.pid
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			_, err := u.CallTool(ctx, tool, nil)
			ue := asUnavailable(t, err)
			if !strings.Contains(ue.Error(), "exit status 3") || !strings.Contains(ue.Stderr, "panic: crashing on purpose") {
				t.Errorf("error = %v, stderr %q", ue, ue.Stderr)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the crash took %s to notice", d)
			}
			select {
			case <-u.Done():
			default:
				t.Errorf("Done is not closed")
			}
			start = time.Now()
			_, err = u.CallTool(ctx, "echo", json.RawMessage(`{"message":"x"}`))
			asUnavailable(t, err)
			// At once, not after a timeout: the bound only catches a wait.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("a call after the crash took %s", d)
			}
			requireGone(t, "crashed server", pid)
		})
	}
}

func TestConn_cancel(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	requireCancelReachesServer(t, u)
}

// requireCancelReachesServer cancels a call of "wait" and checks that the
// server's handler saw it, and that the connection still works.
func requireCancelReachesServer(t *testing.T, u Conn) {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	args, _ := json.Marshal(map[string]string{"mark": mark})
	start := time.Now()
	_, err := u.CallTool(ctx, "wait", args)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		t.Errorf("a cancelled call is not an unavailable server: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %s", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's handler never saw the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := text(t, call(t, u, "echo", `{"message":"after"}`)); got != "Echo: after" {
		t.Errorf("echo after cancel = %q", got)
	}
}

func TestConn_timeout(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := u.CallTool(ctx, "hang", nil)
	asUnavailable(t, err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline", err)
	}
	call(t, u, "echo", `{"message":"after"}`)
}

func TestConn_bigResult(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	const n = 10_000_000
	if got := text(t, call(t, u, "big", `{"bytes":`+strconv.Itoa(n)+`}`)); len(got) != n {
		t.Errorf("got %d bytes, want %d", len(got), n)
	}
}

func TestConn_tooLarge(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{MaxMessageBytes: 1 << 20})
	call(t, u, "big", `{"bytes":500000}`)
	_, err := u.CallTool(context.Background(), "big", json.RawMessage(`{"bytes":2000000}`))
	asUnavailable(t, err)
	if !errors.Is(err, ErrMessageTooLarge) {
		t.Errorf("err = %v, want ErrMessageTooLarge", err)
	}
	select {
	case <-u.Done():
	case <-time.After(5 * time.Second):
		t.Errorf("a stdio stream past the limit must end the connection")
	}
}

// A server that logs to stdout still works: lines that are not JSON-RPC are skipped.
func TestConn_stdoutLogs(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeStdoutLog), Options{})
	if _, ok := listTools(t, u)["echo"]; !ok {
		t.Errorf("no echo")
	}
	if got := text(t, call(t, u, "echo", `{"message":"hi"}`)); got != "Echo: hi" {
		t.Errorf("echo = %q", got)
	}
}

func TestConn_Close_stopsProcessGroup(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	grandchild, err := strconv.Atoi(text(t, call(t, u, "spawn", "")))
	if err != nil {
		t.Fatal(err)
	}
	if state, _ := procState(grandchild); state == "" || state == "Z" {
		t.Fatalf("grandchild %d is not running (%q)", grandchild, state)
	}
	server := u.proc.pid
	start := time.Now()
	if err := u.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Close took %s", d)
	}
	requireGone(t, "server", server)
	requireGone(t, "grandchild", grandchild)
	_, err = u.CallTool(context.Background(), "echo", nil)
	if !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
	if err := u.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestConn_OnToolsChanged(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	changed := make(chan []string, 10)
	u.OnToolsChanged(func() {
		// Calling back into the connection must not deadlock.
		tools, err := u.ListTools(context.Background())
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		if err == nil {
			changed <- names
		}
	})
	call(t, u, "addtool", `{"name":"fresh"}`)
	select {
	case names := <-changed:
		if !strings.Contains(strings.Join(names, ","), "fresh") {
			t.Errorf("tools after the change: %v", names)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("OnToolsChanged was not called")
	}
}

func TestConn_concurrentCalls(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), Options{})
	errs := make(chan error, 50)
	for i := range 50 {
		go func() {
			msg := strconv.Itoa(i)
			res, err := u.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"`+msg+`"}`))
			if err == nil && !strings.Contains(string(res.Raw), `"Echo: `+msg+`"`) {
				err = errors.New("wrong answer: " + string(res.Raw))
			}
			errs <- err
		}()
	}
	for range 50 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// A failed connect returns no connection at all: a nil *conn inside a
// non-nil Conn made every caller that checks for nil call methods of nil.
func TestConnect_failureReturnsNilConn(t *testing.T) {
	t.Parallel()
	missing := testenv.FakeServer(t, testenv.ModeDefault)
	missing.Command = filepath.Join(t.TempDir(), "no-such-server")
	for name, ep := range map[string]manifests.Endpoint{
		"silent":     testenv.FakeServer(t, testenv.ModeSilent),
		"exits":      testenv.FakeServer(t, testenv.ModeExit),
		"init error": testenv.FakeServer(t, testenv.ModeInitError),
		"missing":    missing,
		"http":       {ID: "h", URL: "http://127.0.0.1:1/mcp", Type: "http"},
		"sse":        {ID: "s", URL: "http://127.0.0.1:1/sse", Type: "sse"},
	} {
		up, err := Connect(context.Background(), ep, Options{ConnectTimeout: 300 * time.Millisecond})
		if err == nil {
			up.Close()
			t.Errorf("%s: connected", name)
			continue
		}
		if up != nil {
			t.Errorf("%s: Connect failed (%v) but returned a non-nil Conn (%T)", name, err, up)
		}
	}
}

// A result nested deeper than a JSON decoder reads fails the call at once,
// instead of being dropped by the transport while the call waits for its
// deadline.
func TestConn_tooDeep(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeBadCursor), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := u.CallTool(ctx, "a", nil)
	asUnavailable(t, err)
	if !errors.Is(err, ErrMessageTooDeep) {
		t.Fatalf("error = %v, want ErrMessageTooDeep (after %s)", err, time.Since(start).Round(time.Millisecond))
	}
}

func TestDepthGauge(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`{"a":[1,{"b":2}]}`, 3},
		{`{"s":"[[[{{{"}`, 1},
		{`{"s":"\"[["}`, 1},
		{`["\\"]`, 1},
		{"[[\n[", 1},
	} {
		var g depthGauge
		if got := g.feed([]byte(c.in)); got != c.want {
			t.Errorf("feed(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	// Across reads.
	var g depthGauge
	g.feed([]byte(`{"s":"a\`))
	if got := g.feed([]byte(`"[[[",`)); got != 1 {
		t.Errorf("an escaped quote split across reads: %d, want 1", got)
	}
}

// What a server writes to stderr, and what its errors say, never shows the
// values of its endpoint's env, headers or URL credentials.
func TestRedaction_stderrAndErrors(t *testing.T) {
	t.Parallel()
	const key = "sk-test-0123456789"
	ep := testenv.FakeServer(t, testenv.ModeEnvDump)
	ep.Env["API_KEY"] = key
	_, err := Connect(context.Background(), ep, Options{})
	ue := asUnavailable(t, err)
	if strings.Contains(ue.Stderr, key) || !strings.Contains(ue.Stderr, "API_KEY=[redacted]") {
		t.Errorf("stderr tail = %q, want the key redacted", ue.Stderr)
	}

	ep = testenv.FakeServer(t, testenv.ModeBadCursor)
	ep.Env["API_KEY"] = key
	u := connect(t, ep, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = u.CallTool(ctx, "leak", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("error = %v, want *RPCError", err)
	}
	if strings.Contains(rpc.Message, key) || strings.Contains(string(rpc.Data), key) || !strings.Contains(rpc.Message, "[redacted]") {
		t.Errorf("RPC error = %q (data %s), want the key redacted", rpc.Message, rpc.Data)
	}
}
