package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTSClient_Revision2026: a TypeScript SDK client that asks initialize
// for 2026-07-28 (the revision without the handshake, which the SDK asks
// for when told to) is given 2025-11-25, the newest with one, and all it
// promises: mcp_search's loading a tool is announced with
// tools/list_changed, and no result carries the fields only 2026-07-28
// defines (resultType, ttlMs, cacheScope).
func TestTSClient_Revision2026(t *testing.T) {
	t.Parallel()
	f := runTSClient(t, serveEnv(t), "revision", "--recipe", serveRecipe(t), "serve", "--agent", "tooler")
	var negotiated string
	var listChanged bool
	var search, sum tsCall
	var changed, results int
	var tools, draft []string
	f.get(t, "negotiated", &negotiated)
	f.get(t, "toolsListChanged", &listChanged)
	f.get(t, "search", &search)
	f.get(t, "changed", &changed)
	f.get(t, "tools", &tools)
	f.get(t, "sum", &sum)
	f.get(t, "results", &results)
	f.get(t, "draftFields", &draft)
	if negotiated != "2025-11-25" || !listChanged {
		t.Errorf("initialize: protocol %s, tools.listChanged %v; want 2025-11-25, true", negotiated, listChanged)
	}
	if search.IsError || !strings.Contains(search.Text, "everything__get_sum") {
		t.Errorf("mcp_search = %+v", search)
	}
	if changed != 1 {
		t.Errorf("%d tools/list_changed after mcp_search loaded a tool, want 1", changed)
	}
	if !slices.Contains(tools, "everything__get_sum") {
		t.Errorf("tools/list after mcp_search = %v", tools)
	}
	if sum.IsError || !strings.Contains(sum.Text, "42") {
		t.Errorf("get_sum = %+v", sum)
	}
	// initialize, tools/call twice, tools/list: results enough to see.
	if results < 4 || len(draft) > 0 {
		t.Errorf("%d results, of which fields of 2026-07-28 only: %q", results, draft)
	}
}

type tsOutcomeOf struct {
	Result  json.RawMessage `json:"result"`
	Code    int             `json:"code"`
	Message string          `json:"message"`
}

// TestTSClient_Refusals: mcp serve declares tools and logging and nothing
// else, and the TypeScript SDK client's requests of what it does not
// declare are method not found (-32601): listing resources, templates and
// prompts, completing, and reading a resource that a tool's result linked
// to. An excluded tool's call is refused; logging/setLevel is answered,
// and an unknown level is invalid params.
func TestTSClient_Refusals(t *testing.T) {
	t.Parallel()
	f := runTSClient(t, serveEnv(t), "refusals", "--recipe", serveRecipe(t), "serve", "--agent", "linker")
	var caps, links []string
	var refused map[string]tsOutcomeOf
	var excluded tsCall
	var setLevel, badLevel tsOutcomeOf
	f.get(t, "capabilities", &caps)
	f.get(t, "links", &links)
	f.get(t, "refused", &refused)
	f.get(t, "excluded", &excluded)
	f.get(t, "setLevel", &setLevel)
	f.get(t, "badLevel", &badLevel)
	if want := []string{"logging", "tools"}; !slices.Equal(caps, want) {
		t.Errorf("capabilities = %v, want %v", caps, want)
	}
	if len(links) != 2 || !strings.HasPrefix(links[0], "demo://resource/") {
		t.Errorf("resource links = %q", links)
	}
	for _, method := range []string{"resources/list", "resources/templates/list", "resources/read", "prompts/list", "completion/complete"} {
		o, ok := refused[method]
		if !ok || o.Code != -32601 || len(o.Result) > 0 || !strings.Contains(o.Message, "method not found") {
			t.Errorf("%s = code %d %q, result %s; want method not found (-32601)", method, o.Code, o.Message, o.Result)
		}
	}
	if want := (tsCall{Text: "everything__get_env is not one of the tools this server lists", IsError: true}); excluded != want {
		t.Errorf("get_env = %+v, want %+v", excluded, want)
	}
	if string(setLevel.Result) != "{}" || setLevel.Code != 0 {
		t.Errorf("logging/setLevel info = %s (code %d %q), want {}", setLevel.Result, setLevel.Code, setLevel.Message)
	}
	if badLevel.Code != -32602 {
		t.Errorf("logging/setLevel loudest = code %d %q, result %s; want invalid params (-32602)", badLevel.Code, badLevel.Message, badLevel.Result)
	}
}
