package upstream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/testenv"
)

func levelsOf(msgs []LogMessage) string {
	var ls []string
	for _, m := range msgs {
		ls = append(ls, m.Level)
	}
	return strings.Join(ls, ",")
}

// untilLevels calls the fake's log tool until the messages it logs come
// at want's levels (setLevel goes to the server on its own goroutine).
func untilLevels(t *testing.T, u Conn, book *journal[LogMessage], want string) []LogMessage {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		call(t, u, "log", `{"text":"hello"}`)
		got := book.take()
		if levelsOf(got) == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("logged at %q, want %q", levelsOf(got), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A server's log messages reach OnLog; a level set on the shared LogLevel
// goes to every connection whose server declares logging, and to those
// made later.
func TestConn_logs(t *testing.T) {
	t.Parallel()
	var book journal[LogMessage]
	levels := &LogLevel{}
	opts := Options{OnLog: book.add, LogLevel: levels}
	u := connect(t, testenv.FakeServer(t, testenv.ModeDefault), opts)
	// mcp-go servers log errors and above until told otherwise.
	got := untilLevels(t, u, &book, "error")
	if m := got[0]; m.Server != "fake" || m.Logger != "fake-logger" || string(m.Data) != `"error hello"` || m.Text() != "error hello" {
		t.Errorf("message = %+v", m)
	}

	levels.Set("debug")
	untilLevels(t, u, &book, "debug,info,warning,error")

	later := connect(t, testenv.FakeServer(t, testenv.ModeDefault), opts)
	untilLevels(t, later, &book, "debug,info,warning,error")
	levels.Set("warning")
	untilLevels(t, u, &book, "warning,error")
	untilLevels(t, later, &book, "warning,error")
}

// A call hears its server's messages while it runs, without the
// connection's secrets, all of them; OnLog is not needed for that.
func TestConn_callHearsLogs(t *testing.T) {
	t.Parallel()
	ep := testenv.FakeServer(t, testenv.ModeDefault)
	ep.Env["API_KEY"] = "sk-live-5e3b8c"
	u := connect(t, ep, Options{})
	var book journal[LogMessage]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := json.RawMessage(`{"text":"key sk-live-5e3b8c\nnext line"}`)
	if _, err := u.CallTool(WithCallHooks(ctx, &CallHooks{OnLog: book.add}), "log", args); err != nil {
		t.Fatal(err)
	}
	// The server, which logs errors only until told otherwise, was asked
	// for everything.
	got := book.take()
	if levelsOf(got) != "debug,info,warning,error" || got[0].Text() != "debug key [redacted] next line" || strings.Contains(string(got[0].Data), "sk-live") {
		t.Errorf("the call heard %+v", got)
	}
	// Once the call is over, it hears nothing.
	call(t, u, "log", "")
	if got := book.take(); len(got) != 0 {
		t.Errorf("after the call it heard %+v", got)
	}
}

// server-everything's simulated logging reaches OnLog.
func TestConn_logsEverything(t *testing.T) {
	t.Parallel()
	var book journal[LogMessage]
	u := connect(t, testenv.EverythingStdio(t), Options{OnLog: book.add, LogLevel: &LogLevel{}})
	call(t, u, "toggle-simulated-logging", "")
	deadline := time.Now().Add(15 * time.Second)
	for {
		if got := book.take(); len(got) > 0 {
			if m := got[0]; m.Server != "everything" || !ValidLogLevel(m.Level) || !strings.Contains(m.Text(), "essage") {
				t.Errorf("message = %+v", m)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no log message within 15s of toggle-simulated-logging")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
