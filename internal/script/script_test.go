package script

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
)

func TestRun_Values(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"last expression", "const a = 1\na + 2", `3`},
		{"top-level return", "return {a: 1}\n", `{"a":1}`},
		{"return ends early", "if (true) { return 'early' }\n'late'", `"early"`},
		{"conditional return falls through", "if (false) return 1;\n'late'", `"late"`},
		{"trailing function declaration", "f()\nfunction f() { return 5 }", `5`},
		{"no value", "let x = 1", `null`},
		{"undefined is null", "undefined", `null`},
		{"top-level await", "await Promise.resolve(7)", `7`},
		{"shebang", "#!/usr/bin/env mcp run\n42", `42`},
		{"functions omitted", "({f() {}, n: 1})", `{"n":1}`},

		{"server object", "typeof contacts", `"object"`},
		{"server methods are its tools", "Object.keys(contacts)", `["search_contacts","get_contact"]`},
		{"unauthorized tool is no property", "['drop_table' in warehouse, 'toString' in warehouse, typeof warehouse.toString]", `[false,false,"undefined"]`},
		{"unknown server is no global", "typeof nope", `"undefined"`},
		{"dash alias", `dev_radius === globalThis["dev-radius"]`, `true`},
		{"dash alias call", "await dev_radius.ping()", `"pong"`},
		{"mcp.call alias", `await mcp.call("dev_radius.ping", {})`, `"pong"`},
		{"non-identifier server", `[typeof globalThis["1password"], await mcp.call("1password.get")]`, `["object","secret"]`},
		{"builtin not hidden by server", `[typeof JSON.stringify, await mcp.call("JSON.parse", {})]`, `["function","shadowed"]`},
		{"server object frozen", "contacts.search_contacts = 1; Object.isFrozen(contacts)", `true`},

		{"structured content", `await contacts.search_contacts({query: "Ada"})`, `{"args":{"query":"Ada"},"results":[{"name":"Ada"}]}`},
		{"text content joined", `await contacts.get_contact({id: 1})`, `"line1\nline2"`},
		{"callRaw", `const r = await mcp.callRaw("contacts.get_contact", {id: 1}); [r.content.length, r.content[1].type, r.isError]`, `[3,"image",false]`},
		{"callRaw without raw bytes", `const r = await mcp.callRaw("dev-radius.ping"); r`, `{"content":[{"text":"pong","type":"text"}],"isError":false}`},
		{"tool error", `try { await warehouse.query({sql: "x"}) } catch (e) { return [e instanceof Error, e.name, e.message, e.isToolError, e.server, e.tool, e.result.isError] }`,
			`[true,"ToolError","relation \"orders\" does not exist",true,"warehouse","query",true]`},
		{"host error", `try { await broken.down() } catch (e) { return [e.name, e.isToolError, e.message] }`,
			`["HostError",false,"server broken is unavailable: connection refused"]`},
		{"not available", `try { await mcp.call("warehouse.drop_table", {}) } catch (e) { return [e.name, e.message] }`,
			`["NotAvailableError","warehouse.drop_table is not available in this session"]`},
		{"a tool outside the surface is no property", `["drop_table" in warehouse, "query" in warehouse, Object.keys(warehouse)]`, `[false,true,["query"]]`},
		{"reading it throws what mcp.call rejects with", `try { warehouse.drop_table } catch (e) { return [e.name, e.message, e.server, e.tool] }`,
			`["NotAvailableError","warehouse.drop_table is not available in this session","warehouse","drop_table"]`},
		{"a server object can be awaited and printed", `const w = await warehouse; [w === warehouse, JSON.stringify(warehouse), typeof warehouse.then]`, `[true,"{}","undefined"]`},
		{"unknown server same text", `try { await mcp.call("nope.tool") } catch (e) { return e.message }`,
			`"nope.tool is not available in this session"`},
		{"bad target", `try { await mcp.call("contacts") } catch (e) { return e.name }`, `"TypeError"`},
		{"args must be an object", `try { await contacts.search_contacts([1]) } catch (e) { return e.message }`,
			`"contacts.search_contacts: the arguments must be an object"`},
		{"Promise.all", `(await Promise.all([dev_radius.ping(), mcp.call("1password.get")])).join(" ")`, `"pong secret"`},

		{"search", `(await mcp.search("contact", 5)).map(t => [t.server, t.name, t.description, t.inputSchema])`,
			`[["contacts","search_contacts","Find contacts",{"type":"object"}],["contacts","get_contact","Get one contact",null]]`},
		{"search filters unauthorized", `mcp.search("not").length`, `0`},
		{"search limit", `mcp.search("contact", 1).length`, `1`},
		{"list one server", `mcp.list("dev_radius")`, `[{"server":"dev-radius","name":"ping","description":"Ping","inputSchema":null}]`},
		{"list unknown server", `try { mcp.list("nope") } catch (e) { return e.message }`, `"nope is not available in this session"`},

		{"no require, process, eval", "[typeof require, typeof process, typeof module, typeof eval, typeof fetch, typeof XMLHttpRequest, typeof Deno]",
			`["undefined","undefined","undefined","undefined","undefined","undefined","undefined"]`},
		{"no Function constructor", `try { Function("return 1") } catch (e) { return e.name }`, `"EvalError"`},
		{"no new Function", `try { new Function("return 1") } catch (e) { return e.message }`, `"code generation from strings is disabled in mcp run"`},
		{"no constructor via prototype", `const names = []
for (const f of [function () {}, async () => {}, function* () {}]) {
  try { f.constructor("return 1") } catch (e) { names.push(e.name) }
}
names`, `["EvalError","EvalError","EvalError"]`},
		{"instanceof Function still works", "[(() => 1) instanceof Function, (async () => 1) instanceof Function]", `[true,true]`},
		{"setTimeout", `await new Promise(r => setTimeout(r, 10, "t"))`, `"t"`},
		{"clearTimeout", `let hit = false
const id = setTimeout(() => { hit = true }, 5)
clearTimeout(id)
await new Promise(r => setTimeout(r, 30))
hit`, `false`},
		{"pending timers dropped at the end", `setTimeout(() => {}, 60000); 1`, `1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stderr, err, _ := run(t, tt.src, Limits{Timeout: 10 * time.Second})
			if err != nil {
				t.Fatalf("Run: %v (stderr %q)", err, stderr)
			}
			if got != tt.want {
				t.Errorf("value = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRun_ProgramErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      ProgramError // File is always prog.js; Err is checked by wantErr
		wantErr   any          // a target for errors.As, or nil
	}{
		{"syntax error", "let a = 1;\nlet b = ;\n", ProgramError{Line: 2, Col: 9, Msg: "SyntaxError: Unexpected token ;"}, nil},
		{"syntax error after CRLF", "let a = 1;\r\nlet b = ;", ProgramError{Line: 2, Col: 9, Msg: "SyntaxError: Unexpected token ;"}, nil},
		{"unexpected end after CRLF", "let a = 1;\r\nif (a) {", ProgramError{Line: 2, Col: 9, Msg: "SyntaxError: Unexpected end of input"}, nil},
		{"syntax error on line 1", "let a = 1; let a = 2", ProgramError{Line: 1, Col: 16, Msg: "SyntaxError: Identifier 'a' has already been declared"}, nil},
		{"unexpected end", "if (x) {", ProgramError{Line: 1, Col: 9, Msg: "SyntaxError: Unexpected end of input"}, nil},
		{"unexpected end on a later line", "if (x) {\n  f()", ProgramError{Line: 2, Col: 6, Msg: "SyntaxError: Unexpected end of input"}, nil},
		{"closing the wrapper", "}); (async function () {", ProgramError{Line: 1, Col: 1, Msg: "SyntaxError: Unexpected token }"}, nil},
		{"runtime error", "const x = null;\n  x.foo", ProgramError{Line: 2, Col: 5, Msg: "TypeError: Cannot read property 'foo' of undefined"}, nil},
		{"thrown Error", "\n\n  throw new Error('boom')", ProgramError{Line: 3, Col: 9, Msg: "Error: boom"}, nil},
		{"runtime error on line 1", "  null.x", ProgramError{Line: 1, Col: 8, Msg: "TypeError: Cannot read property 'x' of undefined"}, nil},
		{"error after await", "await null;\nnull.x", ProgramError{Line: 2, Col: 6, Msg: "TypeError: Cannot read property 'x' of undefined"}, nil},
		{"error in a function", "function f() {\n  return undefinedName\n}\nf()", ProgramError{Line: 2, Col: 10, Msg: "ReferenceError: undefinedName is not defined"}, nil},
		{"no dynamic import", `await import("fs")`, ProgramError{Line: 1, Col: 7, Msg: "SyntaxError: Unexpected reserved word"}, nil},
		{"thrown string", "throw 'plain'", ProgramError{Msg: "uncaught exception: plain"}, nil},
		{"thrown object", "throw {code: 7}", ProgramError{Msg: `uncaught exception: {"code":7}`}, nil},
		{"uncaught tool error", "const r = 1\nawait warehouse.query({})", ProgramError{Line: 2, Col: 22, Msg: `ToolError: relation "orders" does not exist`}, new(*ToolError)},
		{"uncaught not available", `await mcp.call("warehouse.drop_table", {})`, ProgramError{Line: 1, Col: 15, Msg: "NotAvailableError: warehouse.drop_table is not available in this session"}, new(*catalog.NotAvailableError)},
		{"uncaught tool outside the surface, as a property", "\nawait warehouse.drop_table({})", ProgramError{Line: 2, Col: 7, Msg: "NotAvailableError: warehouse.drop_table is not available in this session"}, new(*catalog.NotAvailableError)},
		{"uncaught host error", "await broken.down()", ProgramError{Line: 1, Col: 18, Msg: "HostError: server broken is unavailable: connection refused"}, new(*upstream.UnavailableError)},
		{"unhandled rejection", "Promise.reject(new Error('late'))\n1", ProgramError{Line: 1, Col: 16, Msg: "unhandled promise rejection: Error: late"}, nil},
		{"unawaited failing call", "warehouse.query({})\n1", ProgramError{Line: 1, Col: 16, Msg: `unhandled promise rejection: ToolError: relation "orders" does not exist`}, new(*ToolError)},
		{"never settles", "await new Promise(() => {})", ProgramError{Msg: "the program awaits a promise that nothing will settle"}, nil},
		{"stack overflow", "function f() { return f() }\nf()", ProgramError{Line: 1, Col: 24, Msg: "RangeError: Maximum call stack size exceeded"}, nil},
		{"stack overflow through a builtin", "function g() { [1].map(g) }\ng()", ProgramError{Line: 1, Col: 23, Msg: "RangeError: Maximum call stack size exceeded"}, nil},
		{"value not JSON", "1n", ProgramError{Msg: "the program's value cannot be encoded as JSON: TypeError: Do not know how to serialize a BigInt"}, nil},
		{"circular value", "const a = {}; a.a = a; a", ProgramError{Msg: "the program's value cannot be encoded as JSON: TypeError: Converting circular structure to JSON"}, nil},
		{"error in a timer", "setTimeout(() => { throw new Error('in timer') }, 1)\nawait new Promise(r => setTimeout(r, 50))", ProgramError{Line: 1, Col: 26, Msg: "Error: in timer"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err, _ := run(t, tt.src, Limits{Timeout: 10 * time.Second})
			var pe *ProgramError
			if !errors.As(err, &pe) {
				t.Fatalf("Run = %s, %v; want a *ProgramError", got, err)
			}
			tt.want.File = "prog.js"
			gotPE := *pe
			gotPE.Err = nil
			if diff := cmp.Diff(tt.want, gotPE); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tt.wantErr != nil && !errors.As(err, tt.wantErr) {
				t.Errorf("error %v does not wrap a %T", err, tt.wantErr)
			}
		})
	}
}

func TestProgramError_Error(t *testing.T) {
	e := &ProgramError{File: "a.js", Line: 3, Col: 7, Msg: "Error: x"}
	if got, want := e.Error(), "a.js:3:7: Error: x"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &ProgramError{File: "a.js", Msg: "uncaught exception: 1"}
	if got, want := e.Error(), "a.js: uncaught exception: 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestRun_Limits(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		lim       Limits
		kind      string
		wantCalls int // -1: don't check
	}{
		{"timeout in a busy loop", "while (true) {}", Limits{Timeout: 200 * time.Millisecond}, "timeout", 0},
		{"timeout in a caught busy loop", "for (;;) { try { while (true) {} } catch (e) {} }", Limits{Timeout: 200 * time.Millisecond}, "timeout", 0},
		{"timeout while awaiting", "await slow.sleep()", Limits{Timeout: 200 * time.Millisecond}, "timeout", 1},
		{"call cap", "for (let i = 0; i < 5; i++) await dev_radius.ping()", Limits{MaxCalls: 3}, "calls", 3},
		{"call cap cannot be caught", "try { for (let i = 0; i < 5; i++) await dev_radius.ping() } catch (e) { return 'caught' }", Limits{MaxCalls: 3}, "calls", 3},
		{"call cap in Promise.all", "await Promise.all(Array.from({length: 10}, () => dev_radius.ping()))", Limits{MaxCalls: 4}, "calls", -1},
		{"default call cap", "for (let i = 0; i < 200; i++) await dev_radius.ping()", Limits{}, "calls", defaultMaxCalls},
		{"output cap", `"x".repeat(200)`, Limits{MaxOutput: 100}, "output", 0},
		// As large as one reply of a server may be (64 MiB): mcp run cuts
		// what it prints of a value and saves the whole.
		{"default output cap", `"x".repeat(64 << 20)`, Limits{MaxMemory: -1}, "output", 0},
		{"memory", `const a = []; while (true) a.push("x".repeat(4 << 20) + a.length)`, Limits{MaxMemory: 64 << 20}, "memory", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, _, err, rec := run(t, tt.src, tt.lim)
			elapsed := time.Since(start)
			var le *LimitError
			if !errors.As(err, &le) || le.Kind != tt.kind {
				t.Fatalf("Run = %d bytes, %v; want a %s *LimitError", len(got), err, tt.kind)
			}
			// A limit that does not stop the program would run until the
			// test binary's own timeout; this catches that, not slowness.
			if elapsed > time.Minute {
				t.Errorf("Run took %v: the limit did not stop it", elapsed)
			}
			if tt.wantCalls >= 0 && rec.count() != tt.wantCalls {
				t.Errorf("host saw %d calls, want %d", rec.count(), tt.wantCalls)
			}
		})
	}
}

func TestRun_LimitMessages(t *testing.T) {
	for _, tt := range []struct {
		err  *LimitError
		want string
	}{
		{&LimitError{Kind: "timeout", Limit: int64(30 * time.Second)}, "program exceeded its time limit of 30s"},
		{&LimitError{Kind: "calls", Limit: 100}, "program exceeded its limit of 100 tool calls"},
		{&LimitError{Kind: "output", Limit: 1 << 20}, "program value exceeds the output limit of 1048576 bytes"},
		{&LimitError{Kind: "memory", Limit: 1 << 30}, "program exceeded its memory limit of 1024 MiB"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestRun_OutputAtLimit(t *testing.T) {
	got, _, err, _ := run(t, `"x".repeat(98)`, Limits{MaxOutput: 100})
	if err != nil || len(got) != 100 {
		t.Fatalf("Run = %d bytes, %v; want 100 bytes", len(got), err)
	}
}

func TestRun_TimeoutCancelsCalls(t *testing.T) {
	_, _, err, rec := run(t, "await Promise.all([slow.sleep(), slow.sleep(), slow.sleep()])", Limits{Timeout: 100 * time.Millisecond})
	var le *LimitError
	if !errors.As(err, &le) || le.Kind != "timeout" {
		t.Fatalf("Run: %v; want a timeout", err)
	}
	// Run waits for its goroutines, so every call has seen the cancellation.
	if n := rec.canceled.Load(); n != 3 {
		t.Errorf("%d calls saw their context cancelled, want 3", n)
	}
}

func TestRun_ParentCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := Run(ctx, newHost(&recorder{}), "prog.js", "while (true) {}", Limits{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v; want context.Canceled", err)
	}
}

func TestRun_Concurrency(t *testing.T) {
	start := time.Now()
	got, _, err, rec := run(t, "(await Promise.all(Array.from({length: 10}, () => slow.sleep()))).length", Limits{})
	elapsed := time.Since(start)
	if err != nil || got != "10" {
		t.Fatalf("Run = %s, %v", got, err)
	}
	t.Logf("10 concurrent 1 s calls took %v", elapsed)
	if elapsed > 3*time.Second {
		t.Errorf("10 concurrent 1 s calls took %v, want about 1 s", elapsed)
	}
	if n := rec.maxSeen.Load(); n != 10 {
		t.Errorf("%d calls were in flight at once, want 10", n)
	}
}

func TestRun_MaxConcurrent(t *testing.T) {
	got, _, err, rec := run(t, "(await Promise.all(Array.from({length: 4}, () => slow.sleep()))).length", Limits{MaxConcurrent: 2})
	if err != nil || got != "4" {
		t.Fatalf("Run = %s, %v", got, err)
	}
	if n := rec.maxSeen.Load(); n != 2 {
		t.Errorf("%d calls were in flight at once, want 2", n)
	}
}

func TestRun_UnawaitedCallsFinish(t *testing.T) {
	got, _, err, rec := run(t, `contacts.search_contacts({query: "late"}); 1`, Limits{})
	if err != nil || got != "1" {
		t.Fatalf("Run = %s, %v", got, err)
	}
	if diff := cmp.Diff([]string{`contacts.search_contacts {"query":"late"}`}, rec.calls); diff != "" {
		t.Errorf("host calls (-want +got):\n%s", diff)
	}
}

func TestRun_HostGetsDeclaredIDs(t *testing.T) {
	_, _, err, rec := run(t, `await dev_radius.ping(); await mcp.call("dev_radius.ping", {a: [1, "x"]}); await contacts.get_contact()`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dev-radius.ping ", `dev-radius.ping {"a":[1,"x"]}`, "contacts.get_contact "}
	if diff := cmp.Diff(want, rec.calls); diff != "" {
		t.Errorf("host calls (-want +got):\n%s", diff)
	}
}

func TestRun_Console(t *testing.T) {
	src := `console.log("a", 1, {b: [2]}, null, undefined)
console.error(new Error("e"))
console.warn(() => 1, "x\ny")
console.info()
3`
	got, stderr, err, _ := run(t, src, Limits{})
	if err != nil || got != "3" {
		t.Fatalf("Run = %s, %v", got, err)
	}
	want := "a 1 {\"b\":[2]} null undefined\nError: e\n[Function] x\ny\n\n"
	if stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

func TestRun_ValueIsJSON(t *testing.T) {
	got, _, err, _ := run(t, `({s: "\ud800", n: NaN, d: new Date(0)})`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(got)) || !strings.Contains(got, `"n":null`) {
		t.Errorf("value = %s", got)
	}
}

func TestRun_StuckBuiltin(t *testing.T) {
	// A backtracking regular expression runs in Go, where the VM cannot
	// be interrupted; Run still returns soon after the time limit.
	start := time.Now()
	_, _, err, _ := run(t, `/^(a+)+\1$/.test("a".repeat(40) + "b")`, Limits{Timeout: 100 * time.Millisecond})
	elapsed := time.Since(start)
	var le *LimitError
	if !errors.As(err, &le) || le.Kind != "timeout" {
		t.Fatalf("Run: %v; want a timeout", err)
	}
	if elapsed > 100*time.Millisecond+abandonGrace+time.Second {
		t.Errorf("Run took %v", elapsed)
	}
}
