package toolsmode

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/mux/upstream"
)

// writtenConn is a client connection that keeps what is written to it.
type writtenConn struct {
	mcp.Connection
	mu  sync.Mutex
	got []jsonrpc.Message
}

func (w *writtenConn) Write(_ context.Context, msg jsonrpc.Message) error {
	w.mu.Lock()
	w.got = append(w.got, msg)
	w.mu.Unlock()
	return nil
}

// A task the client starts carries its _meta upstream, as a plain call
// does, and the task's progress comes back under the client's token.
func TestTaskConn_taskHooks(t *testing.T) {
	w := &writtenConn{}
	c := &taskConn{Connection: w, life: context.Background()}
	meta := map[string]json.RawMessage{"progressToken": json.RawMessage(`7`), "com.example/trace": json.RawMessage(`{"id":1}`)}
	h := upstream.HooksOf(c.taskHooks(context.Background(), meta))
	if string(h.Meta["com.example/trace"]) != `{"id":1}` || h.OnProgress == nil {
		t.Fatalf("hooks = %+v, want the client's _meta and progress", h)
	}
	h.OnProgress(upstream.Progress{Progress: 2, Total: 4, Message: "half"})
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.got) != 1 {
		t.Fatalf("written = %v, want one notification", w.got)
	}
	n, ok := w.got[0].(*jsonrpc.Request)
	if !ok || n.Method != "notifications/progress" || n.ID.IsValid() {
		t.Fatalf("written = %+v", w.got[0])
	}
	if got, want := string(n.Params), `{"progressToken":7,"message":"half","progress":2,"total":4}`; !sameJSON([]byte(got), []byte(want)) {
		t.Errorf("params = %s, want %s", got, want)
	}

	// Without a token nothing asks for progress; without _meta the
	// context is as it was.
	if h := upstream.HooksOf(c.taskHooks(context.Background(), map[string]json.RawMessage{"k": json.RawMessage(`1`)})); h.OnProgress != nil {
		t.Error("progress asked for without a token")
	}
	ctx := context.Background()
	if c.taskHooks(ctx, nil) != ctx {
		t.Error("the context changed without _meta")
	}
}
