package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux/upstream"
)

// A program in a process of its own comes to what it comes to in this one:
// the same value, console output, error text, exit code, and the same
// kind of error behind an uncaught failure, for every way a program
// reaches its host.
func TestRunIsolated_sameAsRun(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"const a = 1\na + 2",
		"typeof contacts",
		"Object.keys(contacts)",
		`await contacts.search_contacts({query: "Ada"})`,
		`await contacts.get_contact({id: 1})`,
		`const r = await mcp.callRaw("contacts.get_contact", {id: 1}); [r.content.length, r.content[1].type, r.isError]`,
		`try { await warehouse.query({sql: "x"}) } catch (e) { return [e.name, e.message, e.isToolError, e.server, e.tool, e.result] }`,
		`try { await broken.down() } catch (e) { return [e.name, e.isToolError, e.message] }`,
		`try { await mcp.call("warehouse.drop_table", {}) } catch (e) { return [e.name, e.message] }`,
		`try { warehouse.drop_table } catch (e) { return [e.name, e.message, e.server, e.tool] }`,
		`try { await contacts.search_contact({}) } catch (e) { return [e.name, e.message] }`,
		`(await Promise.all([dev_radius.ping(), mcp.call("1password.get")])).join(" ")`,
		`(await mcp.search("contact", 5)).map(t => [t.server, t.name, t.description, t.inputSchema])`,
		`mcp.list("dev_radius")`,
		`try { mcp.list("nope") } catch (e) { return e.message }`,
		`console.log("a", 1, {b: [2]}); console.error(new Error("e")); await contacts.get_contact(); console.log("after"); 1`,
		"let b = ;",
		"\n\n  throw new Error('boom')",
		"throw {code: 7}",
		"const r = 1\nawait warehouse.query({})",
		`await mcp.call("warehouse.drop_table", {})`,
		"\nawait warehouse.drop_table({})",
		"await broken.down()",
		"warehouse.query({})\n1",
		"await new Promise(() => {})",
		"function f() { return f() }\nf()",
		"1n",
		"'x'.repeat(200)",
	} {
		want := outcomeOf(t, Run, src)
		got := outcomeOf(t, RunIsolated, src)
		if got != want {
			t.Errorf("%s:\nin a process of its own: %s\nin this one:             %s", src, got, want)
		}
	}
}

// outcomeOf is all a caller can see of a run of src against newHost.
func outcomeOf(t *testing.T, run func(context.Context, Host, string, string, Limits, io.Writer) (json.RawMessage, error), src string) string {
	t.Helper()
	var stderr strings.Builder
	v, err := run(context.Background(), newHost(&recorder{}), "prog.js", src, Limits{Timeout: 10 * time.Second, MaxOutput: 100}, &stderr)
	var cause string
	var pe *ProgramError
	if errors.As(err, &pe) && pe.Err != nil {
		cause = fmt.Sprintf("%T %v", pe.Err, pe.Err)
	}
	saved := savedName.ReplaceAllString(stderr.String(), "SAVED")
	return fmt.Sprintf("value %s; stderr %q; error %v; exit %d; cause %s", v, saved, err, exit.Code(err), cause)
}

// savedName is the part of a saved file's name that differs each time.
var savedName = regexp.MustCompile(`-[0-9]{8}-[0-9]{6}-[0-9]+\.`)

// The error behind an uncaught failure is the host's own, not a copy, so
// that what mcp run says of it (its exit code, its hint) is what it says
// of the same error from mcp call.
func TestRunIsolated_hostErrorsKept(t *testing.T) {
	t.Parallel()
	down := &upstream.UnavailableError{Server: "broken", Err: errors.New("connection refused")}
	failed := &upstream.UnavailableError{Server: "contacts", Err: errors.New("reset")}
	h := newHost(&recorder{})
	h.UnavailableFunc = func(server string) error {
		if server == "broken" {
			return down
		}
		return nil
	}
	h.ToolsFunc = func() map[string][]string { return map[string][]string{"contacts": {"get"}, "broken": nil} }
	h.CallFunc = func(context.Context, string, string, json.RawMessage) (*catalog.Result, error) { return nil, failed }
	for src, want := range map[string]error{"await broken.anything()": down, "await contacts.get()": failed} {
		_, err := RunIsolated(context.Background(), h, "prog.js", src, Limits{}, nil)
		if !errors.Is(err, want) {
			t.Errorf("%s: %v does not wrap the host's error %p", src, err, want)
		}
	}
}

// Calls in flight when the caller's time is up are cancelled, in this
// process, and the run comes to its time limit.
func TestRunIsolated_TimeoutCancelsCalls(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	ctx, timeUp := context.WithCancel(context.Background())
	defer timeUp()
	done := make(chan error, 1)
	go func() {
		_, err := RunIsolated(deadlineCtx{ctx}, newHost(rec), "prog.js", "await Promise.all([slow.sleep(), slow.sleep(), slow.sleep()])", Limits{Timeout: -1}, nil)
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); rec.inFlight.Load() < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls in flight after 10 s, want 3", rec.inFlight.Load())
		}
		time.Sleep(time.Millisecond)
	}
	timeUp()
	err := <-done
	var le *LimitError
	if !errors.As(err, &le) || le.Kind != "timeout" {
		t.Fatalf("RunIsolated: %v; want a timeout", err)
	}
	if n := rec.canceled.Load(); n != 3 {
		t.Errorf("%d calls saw their context cancelled, want 3", n)
	}
}

// deadlineCtx ends as a command's --timeout does: with
// context.DeadlineExceeded, when the context it wraps ends.
type deadlineCtx struct{ context.Context }

func (c deadlineCtx) Err() error {
	if c.Context.Err() != nil {
		return context.DeadlineExceeded
	}
	return nil
}

// A busy loop ends when the caller cancels.
func TestRunIsolated_ParentCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := RunIsolated(ctx, newHost(&recorder{}), "prog.js", "while (true) {}", Limits{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunIsolated: %v; want context.Canceled", err)
	}
}

// What a program sends at once is bounded, and the program is told so.
func TestRunIsolated_requestTooLarge(t *testing.T) {
	t.Parallel()
	src := `const big = "y".repeat(65 << 20)
const out = []
for (const f of [() => contacts.search_contacts({q: big}), () => mcp.search(big)]) {
  try { await f() } catch (e) { out.push(e.name + ": " + e.message) }
}
out`
	rec := &recorder{}
	// No memory limit: what is bounded here is the message, whatever the
	// program can hold (under the race detector, its shadow counts too).
	v, err := RunIsolated(context.Background(), newHost(rec), "prog.js", src, Limits{MaxMemory: -1}, nil)
	want := `["HostError: the arguments of contacts.search_contacts are larger than 64 MiB","HostError: the query is larger than 64 MiB"]`
	if err != nil || string(v) != want {
		t.Errorf("got %s, %v; want %s", v, err, want)
	}
	if n := rec.count(); n != 0 {
		t.Errorf("%d calls reached the host, want none", n)
	}
}

// The parent reads one message a line, strictly and bounded.
func TestReadMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		max  int
		want error
	}{
		{`{"cancel":3}` + "\n", 100, nil},
		{`{"cancel":3}`, 100, io.ErrUnexpectedEOF},
		{"", 100, io.EOF},
		{`{"cancel":3,"extra":1}` + "\n", 100, errUnreadable},
		{`{"cancel":3} {}` + "\n", 100, errUnreadable},
		{`{"cancel":"x"}` + "\n", 100, errUnreadable},
		{`{"log":"` + strings.Repeat("A", 200) + `"}` + "\n", 100, errTooLarge},
		{`{"log":"` + strings.Repeat("A", 8000) + `"}` + "\n", 10000, nil},
	} {
		var m fromChild
		if err := readMessage(bufio.NewReaderSize(strings.NewReader(tt.in), 16), tt.max, &m); err != tt.want {
			t.Errorf("%.40q: %v, want %v", tt.in, err, tt.want)
		}
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add([]byte(`{"request":{"id":1,"op":"call","server":"a","tool":"b","args":{}}}` + "\n"))
	f.Add([]byte(`{"done":{"err":{"program":{"File":"p","Line":1,"Col":2,"Msg":"x"},"cause":{"ref":3}}}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m fromChild
		_ = readMessage(bufio.NewReaderSize(bytes.NewReader(b), 16), 1<<16, &m)
	})
}

// The runtime's ways of saying it could not get memory are the memory
// limit; anything else a child says as it dies is not.
func TestOutOfMemory(t *testing.T) {
	t.Parallel()
	for head, want := range map[string]bool{
		"fatal error: runtime: out of memory\n\ngoroutine 1 [running]:":                                                       true,
		"runtime: out of memory: cannot allocate 1073741824-byte block (805306368 in use)\nfatal error: out of memory":        true,
		"fatal error: out of memory allocating heap arena metadata":                                                           true,
		"fatal error: runtime: cannot allocate memory":                                                                        true,
		"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort":                                true,
		"==28499==ERROR: ThreadSanitizer failed to allocate 0x20000000 (536870912) bytes at address 218028000000 (errno: 12)": true,
		"panic: runtime error: index out of range [3] with length 3":                                                          false,
		"fatal error: concurrent map writes\nout of memory":                                                                   false,
		"runtime: VirtualAlloc of 1073741824 bytes failed with errno=1455\nfatal error: out of memory":                        true,
		"runtime: VirtualAlloc of 65536 bytes failed with errno=1816\nfatal error: runtime: failed to commit pages":           true,
		"runtime: failed to create new OS thread (have 7 already; errno=1455)\nfatal error: runtime.newosproc":                true,
		"runtime: VirtualAlloc of 65536 bytes failed with errno=87\nfatal error: runtime: failed to commit pages":             false,
		"runtime: failed to create new OS thread (have 7 already; errno=5)\nfatal error: runtime.newosproc":                   false,
		residentMarker + "\n": true,
		"":                    false,
	} {
		if got := outOfMemory(head); got != want {
			t.Errorf("outOfMemory(%.50q) = %v, want %v", head, got, want)
		}
	}
}
