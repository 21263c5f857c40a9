package toolsmode

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// rawSession serves s over pipes and speaks the handshake at version;
// send writes a line, recv reads one; served gets what ServeStdio returned.
func rawSession(t *testing.T, s *Server, version string) (send func(string), recv func() string, served <-chan error) {
	t.Helper()
	toServer, fromServer, done := servePipes(context.Background(), s)
	t.Cleanup(func() { _ = toServer.Close(); _ = fromServer.Close() })
	lines := bufio.NewScanner(fromServer)
	lines.Buffer(nil, 1<<20)
	send = func(line string) {
		if _, err := io.WriteString(toServer, line+"\n"); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	recv = func() string {
		if !lines.Scan() {
			t.Fatalf("recv: %v", lines.Err())
		}
		return lines.Text()
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	var init struct {
		Result struct{ ProtocolVersion string }
	}
	if err := json.Unmarshal([]byte(recv()), &init); err != nil || init.Result.ProtocolVersion != version {
		t.Fatalf("initialize: %+v, %v", init, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, recv, done
}

// A JSON-RPC batch ends the connection of a client on a revision without
// batches, as the SDK's stdio connection does, and is answered as one on
// a revision with them.
func TestServer_batches(t *testing.T) {
	t.Parallel()
	eng := newEngine(t, []*catalog.ServerSurface{{ID: "fake", All: true}}, withID(testenv.FakeServer(t, testenv.ModeTasks), "fake"))

	s, _ := newServer(t, eng, Options{})
	send, recv, served := rawSession(t, s, "2025-03-26")
	send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	if got := recv(); !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Errorf("a batch on 2025-03-26 = %s", got)
	}

	s2, _ := newServer(t, eng, Options{})
	send, recv, served = rawSession(t, s2, "2025-11-25")
	send(`{"jsonrpc":"2.0","id":"[","method":"ping","params":{"_meta":{"a":"\"[ ]"}}}`)
	if got := recv(); got != `{"jsonrpc":"2.0","id":"[","result":{}}` {
		t.Errorf("ping = %s", got)
	}
	send(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "JSON-RPC batching is not supported in 2025-06-18 and later") {
			t.Errorf("ServeStdio = %v, want the batch refused", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the connection survived a batch on 2025-11-25")
	}
}

// The guard passes on a prefix of its input, all of it until a batch is
// refused, whatever the input.
func FuzzBatchGuard(f *testing.F) {
	f.Add([]byte(`{"id":"[","a":["\"]"]}` + "\n" + `[{"id":1}]`))
	f.Add([]byte(`]]}}[`))
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &batchGuard{r: strings.NewReader(string(in))}
		v := batchesGone
		g.version.Store(&v)
		out, err := io.ReadAll(g)
		if !strings.HasPrefix(string(in), string(out)) {
			t.Fatalf("output %q is not a prefix of %q", out, in)
		}
		if err == nil && len(out) != len(in) {
			t.Fatalf("%d of %d bytes passed without an error", len(out), len(in))
		}
	})
}
