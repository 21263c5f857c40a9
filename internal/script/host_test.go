package script

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
)

// fakeHost is a Host whose methods are its fields.
type fakeHost struct {
	ToolsFunc  func() map[string][]string
	CallFunc   func(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error)
	SearchFunc func(ctx context.Context, query string, limit int) ([]catalog.Tool, error)
	ListFunc   func(ctx context.Context, server string) ([]catalog.Tool, error)
	// UnavailableFunc, if set, is Unavailable.
	UnavailableFunc func(server string) error
}

func (h *fakeHost) NotAvailable(server, tool string) *catalog.NotAvailableError {
	return &catalog.NotAvailableError{Server: server, Tool: tool, Session: true}
}

var _ Host = (*fakeHost)(nil)

func (h *fakeHost) Unavailable(server string) error {
	if h.UnavailableFunc == nil {
		return nil
	}
	return h.UnavailableFunc(server)
}

func (h *fakeHost) Tools() map[string][]string { return h.ToolsFunc() }
func (h *fakeHost) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	return h.CallFunc(ctx, server, tool, args)
}
func (h *fakeHost) Search(ctx context.Context, query string, limit int) ([]catalog.Tool, error) {
	return h.SearchFunc(ctx, query, limit)
}
func (h *fakeHost) List(ctx context.Context, server string) ([]catalog.Tool, error) {
	return h.ListFunc(ctx, server)
}

func text(s ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, t := range s {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": t})
		out = append(out, b)
	}
	return out
}

// recorder counts what reached the host.
type recorder struct {
	mu       sync.Mutex
	calls    []string
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	canceled atomic.Int32
}

func (r *recorder) record(server, tool string, args json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, server+"."+tool+" "+string(args))
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// newHost is a session with a few servers:
//
//	contacts.search_contacts  structured content echoing its arguments
//	contacts.get_contact      text, an image and more text
//	warehouse.query           a tool error
//	dev-radius.ping           text "pong"
//	1password.get             text "secret" (not an identifier)
//	JSON.parse                text "shadowed" (collides with a builtin)
//	slow.sleep                sleeps 1 s or until cancelled
//	broken.down               upstream unavailable
func newHost(rec *recorder) *fakeHost {
	return &fakeHost{
		ToolsFunc: func() map[string][]string {
			return map[string][]string{
				"contacts":   {"search_contacts", "get_contact"},
				"warehouse":  {"query"},
				"dev-radius": {"ping"},
				"1password":  {"get"},
				"JSON":       {"parse"},
				"slow":       {"sleep"},
				"broken":     {"down"},
			}
		},
		CallFunc: func(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
			rec.record(server, tool, args)
			switch server + "." + tool {
			case "contacts.search_contacts":
				var a map[string]any
				_ = json.Unmarshal(args, &a)
				s, _ := json.Marshal(map[string]any{"args": a, "results": []any{map[string]any{"name": "Ada"}}})
				return &catalog.Result{Content: text("ignored text"), Structured: s}, nil
			case "contacts.get_contact":
				content := append(text("line1"), json.RawMessage(`{"type":"image","data":"AAAA","mimeType":"image/png"}`))
				content = append(content, text("line2")...)
				raw, _ := json.Marshal(map[string]any{"content": content, "isError": false})
				return &catalog.Result{Raw: raw, Content: content}, nil
			case "warehouse.query":
				return &catalog.Result{IsError: true, Content: text("relation \"orders\" does not exist")}, nil
			case "dev-radius.ping":
				return &catalog.Result{Content: text("pong")}, nil
			case "1password.get":
				return &catalog.Result{Content: text("secret")}, nil
			case "JSON.parse":
				return &catalog.Result{Content: text("shadowed")}, nil
			case "slow.sleep":
				n := rec.inFlight.Add(1)
				defer rec.inFlight.Add(-1)
				for {
					m := rec.maxSeen.Load()
					if n <= m || rec.maxSeen.CompareAndSwap(m, n) {
						break
					}
				}
				select {
				case <-time.After(time.Second):
					return &catalog.Result{Content: text("slept")}, nil
				case <-ctx.Done():
					rec.canceled.Add(1)
					return nil, ctx.Err()
				}
			case "broken.down":
				return nil, &upstream.UnavailableError{Server: server, Err: errors.New("connection refused")}
			}
			return nil, errors.New("fake host: " + server + "." + tool + " is not available in this session")
		},
		SearchFunc: func(ctx context.Context, query string, limit int) ([]catalog.Tool, error) {
			all := []catalog.Tool{
				{Server: "contacts", Name: "search_contacts", Description: "Find contacts", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Server: "warehouse", Name: "drop_table", Description: "not authorized"},
				{Server: "contacts", Name: "get_contact", Description: "Get one contact"},
			}
			var out []catalog.Tool
			for _, t := range all {
				if strings.Contains(strings.ToLower(t.Description), query) && len(out) < limit {
					out = append(out, t)
				}
			}
			return out, nil
		},
		ListFunc: func(ctx context.Context, server string) ([]catalog.Tool, error) {
			if server == "dev-radius" {
				return []catalog.Tool{{Server: "dev-radius", Name: "ping", Description: "Ping"}}, nil
			}
			return nil, errors.New("fake host: unexpected list of " + server)
		},
	}
}

// run runs src against a fresh fake host.
func run(t *testing.T, src string, lim Limits) (string, string, error, *recorder) {
	t.Helper()
	rec := &recorder{}
	var stderr strings.Builder
	v, err := Run(context.Background(), newHost(rec), "prog.js", src, lim, &stderr)
	return string(v), stderr.String(), err, rec
}
