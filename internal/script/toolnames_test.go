package script

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
)

// dashedHost is a session whose servers write tool names with "-":
//
//	mongodb.list-connections   text "connections"
//	context7.query-docs        text "docs"
//	fs.read_text_file          text "file"
func dashedHost(rec *recorder) *fakeHost {
	return &fakeHost{
		ToolsFunc: func() map[string][]string {
			return map[string][]string{
				"mongodb":  {"list-connections"},
				"docs":     {"get-page", "get-section", "get+raw"},
				"context7": {"query-docs", "resolve-library-id"},
				"fs":       {"read_text_file"},
			}
		},
		CallFunc: func(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
			rec.record(server, tool, args)
			return &catalog.Result{Content: text(server + "." + tool)}, nil
		},
	}
}

// In a program, "_" reaches a tool written with "-" (as a property and
// through mcp.call), and the error for a name that is not a tool shows the
// forms that work: `mongodb.list-connections(...)` reads as
// `mongodb.list - connections(...)`, so the error for mongodb.list says
// how to write the tool it most likely meant.
func TestRun_DashedToolNames(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"underscore for dash", `await mongodb.list_connections({})`, `"mongodb.list-connections"`},
		{"underscore through mcp.call", `await mcp.call("context7.query_docs", {})`, `"context7.query-docs"`},
		{"bracket form", `await context7["query-docs"]({})`, `"context7.query-docs"`},
		{"dash for underscore through mcp.call", `await mcp.call("fs.read-text-file")`, `"fs.read_text_file"`},
		{"the keys stay the tools' names", `Object.keys(context7)`, `["query-docs","resolve-library-id"]`},
		{"a dashed name read as a subtraction", `try { await mongodb.list-connections({}) } catch (e) { return [e.name, e.message] }`,
			`["NotAvailableError","mongodb.list is not available in this session (did you mean mongodb[\"list-connections\"](...) or mongodb.list_connections(...)?)"]`},
		{"a misspelled name", `try { await fs.read_text_flie({}) } catch (e) { return e.message }`,
			`"fs.read_text_flie is not available in this session (did you mean fs.read_text_file(...)?)"`},
		{"a misspelled name through mcp.call", `try { await mcp.call("context7.query-doc") } catch (e) { return e.message }`,
			`"context7.query-doc is not available in this session (did you mean context7[\"query-docs\"](...) or context7.query_docs(...)?)"`},
		{"several near, one form each", `try { await docs.get-page({}) } catch (e) { return e.message }`,
			`"docs.get is not available in this session (did you mean docs.get_page(...) or docs.get_section(...)?)"`},
		{"no method form", `try { await mcp.call("docs.get+ra") } catch (e) { return e.message }`,
			`"docs.get+ra is not available in this session (did you mean docs[\"get+raw\"](...)?)"`},
		{"nothing near", `try { await fs.delete_everything() } catch (e) { return e.message }`,
			`"fs.delete_everything is not available in this session"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			var stderr strings.Builder
			v, err := Run(context.Background(), dashedHost(rec), "prog.js", tt.src, Limits{Timeout: 10 * time.Second}, &stderr)
			if err != nil || string(v) != tt.want {
				t.Errorf("Run = %s, %v; want %s", v, err, tt.want)
			}
		})
	}
}
