package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// connect connects or fails the test, and closes the connection when the test ends.
func connect(t testing.TB, ep manifests.Endpoint, opts Options) *conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	up, err := Connect(ctx, ep, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	u := up.(*conn)
	t.Cleanup(func() { u.Close() })
	return u
}

// call calls a tool with a 20 s limit and fails the test on error.
func call(t testing.TB, u Conn, name, args string) *catalog.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := u.CallTool(ctx, name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return res
}

// text is the text of a result's first content item.
func text(t testing.TB, res *catalog.Result) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("result has no content: %s", res.Raw)
	}
	var c struct{ Type, Text string }
	if err := json.Unmarshal(res.Content[0], &c); err != nil || c.Type != "text" {
		t.Fatalf("first content item is not text: %s", res.Content[0])
	}
	return c.Text
}

// listTools lists a server's tools within a minute (one bounds test lists
// 10,050 under the race detector) and fails the test on error.
func listTools(t testing.TB, u Conn) map[string]catalog.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := u.ListTools(ctx)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	m := map[string]catalog.Tool{}
	for _, tl := range tools {
		m[tl.Name] = tl
	}
	return m
}

func asUnavailable(t testing.TB, err error) *UnavailableError {
	t.Helper()
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("error is %T (%v), want *UnavailableError", err, err)
	}
	return ue
}

// procState is the state letter of a process ("R", "S", "Z", ...) and its
// parent, or "" when it is gone.
func procState(pid int) (state string, ppid int) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid
}

// requireGone fails unless pid has ended: gone, or dead and waiting for a
// parent other than us to reap it (some container inits never do).
func requireGone(t testing.TB, what string, pid int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		state, ppid := procState(pid)
		if state == "" || state == "Z" && ppid != os.Getpid() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still there: state %s, parent %d", what, pid, state, ppid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ourZombies lists the children of this process that died and were never reaped.
func ourZombies() []int {
	entries, _ := os.ReadDir("/proc")
	var z []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid := procState(pid); state == "Z" && ppid == os.Getpid() {
			z = append(z, pid)
		}
	}
	return z
}

// everythingOn is server-everything's endpoint over HTTP: kind is its
// transport ("streamableHttp" or "sse"), typ the endpoint's type ("" for
// a url without type).
func everythingOn(kind, typ string) func(t testing.TB) manifests.Endpoint {
	return func(t testing.TB) manifests.Endpoint {
		return manifests.Endpoint{ID: "everything", URL: testenv.EverythingHTTP(t, kind), Type: typ}
	}
}

// everythingTransports is server-everything over each transport.
var everythingTransports = []struct {
	name string
	ep   func(t testing.TB) manifests.Endpoint
}{
	{"stdio", testenv.EverythingStdio},
	{"streamableHttp", everythingOn("streamableHttp", "http")},
	{"sse", everythingOn("sse", "sse")},
}

// journal keeps, in order, what a hook of the connection was given, for
// any goroutine.
type journal[T any] struct {
	mu  sync.Mutex
	got []T
}

func (j *journal[T]) add(v T) {
	j.mu.Lock()
	j.got = append(j.got, v)
	j.mu.Unlock()
}

// all is what was given so far.
func (j *journal[T]) all() []T {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.got)
}

// take is what was given since the last take.
func (j *journal[T]) take() []T {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.got
	j.got = nil
	return out
}
