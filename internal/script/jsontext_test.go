package script

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
)

// jsonTextHost is a server that answers JSON as one text item and no
// structured content (as n8n does), and one that answers plain text.
func jsonTextHost() *fakeHost {
	h := newHost(&recorder{})
	h.ToolsFunc = func() map[string][]string { return map[string][]string{"n8n": {"search_nodes", "hello"}} }
	h.CallFunc = func(_ context.Context, _, tool string, _ json.RawMessage) (*catalog.Result, error) {
		if tool == "hello" {
			return &catalog.Result{Content: text("hello world")}, nil
		}
		return &catalog.Result{Content: text(` [{"name":"Webhook"},{"name":"HTTP Request"}]` + "\n")}, nil
	}
	return h
}

// A call of a server that answers JSON as text resolves to that text;
// mcp.json makes it the value it holds, and leaves other values as they
// are, in this process and in one of its own.
func TestRun_mcpJSON(t *testing.T) {
	t.Parallel()
	for name, runner := range map[string]func(context.Context, Host, string, string, Limits, io.Writer) (json.RawMessage, error){"Run": Run, "RunIsolated": RunIsolated} {
		lim := Limits{Timeout: 10 * time.Second}
		for src, want := range map[string]string{
			`typeof await n8n.search_nodes({})`:                                                         `"string"`,
			`mcp.json(await n8n.search_nodes({})).map(n => n.name)`:                                     `["Webhook","HTTP Request"]`,
			`mcp.json({a: 1})`:                                                                          `{"a":1}`,
			`[mcp.json(3), mcp.json(null), mcp.json(undefined) === undefined]`:                          `[3,null,true]`,
			`let m; try { mcp.json(await n8n.hello()) } catch (e) { m = e.name + ": " + e.message }; m`: `"SyntaxError: mcp.json: the text is not JSON: \"hello world\""`,
		} {
			v, err := runner(context.Background(), jsonTextHost(), "prog.js", src, lim, nil)
			if err != nil || string(v) != want {
				t.Errorf("%s: %s = %s, %v; want %s", name, src, v, err, want)
			}
		}
		// A TypeError after such a call names it.
		_, err := runner(context.Background(), jsonTextHost(), "prog.js", `const r = await n8n.search_nodes({}); r.map(n => n.name)`, lim, nil)
		var pe *ProgramError
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "TypeError") || pe.JSONText != "n8n.search_nodes" {
			t.Errorf("%s: a TypeError after a call that resolved to JSON text: %#v", name, err)
		}
		// Nor does any other error, or a TypeError after plain text.
		for _, src := range []string{
			`await n8n.search_nodes({}); throw new Error("mine")`,
			`const r = await n8n.hello(); r.map(x => x)`,
		} {
			_, err := runner(context.Background(), jsonTextHost(), "prog.js", src, lim, nil)
			if !errors.As(err, &pe) || pe.JSONText != "" {
				t.Errorf("%s: %s: %#v, want no JSONText", name, src, err)
			}
		}
	}
}
