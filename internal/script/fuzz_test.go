package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// FuzzRun checks that no program text panics, hangs, or ends with an error
// of a kind Run does not promise.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"1 + 2",
		"return await contacts.search_contacts({query: 'Ada'})",
		"await Promise.all([dev_radius.ping(), mcp.call('1password.get')])",
		"while (true) {}",
		"}); (async function () {",
		"#!x\n`${a}`",
		"throw new Error('x')",
		"function f() { return f() } f()",
		"let a = 1; let a = 2",
		"setTimeout(() => { throw 1 }, 1)",
		"await new Promise(() => {})",
		"mcp.list('contacts'); mcp.search('contact')",
		"Function('return 1')()",
		"async function* g() {}",
		"/(a+)+$/.test('a'.repeat(30) + 'b')",
	} {
		f.Add(s)
	}
	h := newHost(&recorder{})
	lim := Limits{Timeout: 100 * time.Millisecond, MaxMemory: 256 << 20, MaxOutput: 1 << 16}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		// A hang would otherwise stall the fuzzer silently.
		hung := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("Run hangs on %q", src)) })
		defer hung.Stop()
		v, err := Run(context.Background(), h, "fuzz.js", src, lim, io.Discard)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Run took %v", d)
		}
		var pe *ProgramError
		var le *LimitError
		switch {
		case err == nil:
			if !json.Valid(v) {
				t.Fatalf("Run returned invalid JSON %q", v)
			}
		case errors.As(err, &pe), errors.As(err, &le):
		default:
			t.Fatalf("Run returned %T: %v", err, err)
		}
	})
}
