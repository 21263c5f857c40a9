package main

import (
	"slices"
	"strings"
	"testing"
)

// changesRecipe is a recipe of server-everything, server-memory and the
// fake server with the tools that change its list (FAKE_CHANGES) and
// instructions of its own; its agent "changer" is in tools mode with
// everything's echo and every fake tool, late_deferred deferred. It is
// trusted in env.
func changesRecipe(t *testing.T, env []string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json": `{"name": "changes", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "everything", "tools": {"include": ["*"]}}, {"id": "memory", "tools": {"include": ["*"]}},
  {"id": "fake", "tools": {"include": ["*"]}}]}}}`,
		"mcp.json": `{"mcpServers": {
  "everything": {"command": "${NODE}", "args": ["${EVERYTHING_JS}", "stdio"]},
  "memory": {"command": "${NODE}", "args": ["${MEMORY_JS}"], "env": {"MEMORY_FILE_PATH": "${MEMORY_FILE}"}},
  "fake": {"command": "fake-server", "env": {"FAKE_CHANGES": "1", "FAKE_INSTRUCTIONS": "` + fakeInstructions + `"}}}}`,
		"agents/changer.yaml": "mcp:\n  mode: tools\n  servers:\n    everything:\n      include: [echo]\n" +
			"    memory:\n      include: [read_graph]\n    fake:\n      include: [\"*\"]\n      defer: [late_deferred]\n",
	})
	if code, _, stderr := runMCP(t, env, "trust", dir); code != 0 {
		t.Fatalf("mcp trust: exit %d: %s", code, stderr)
	}
	return dir
}

// fakeInstructions are the fake server's instructions in changesRecipe.
const fakeInstructions = "Call add_named to grow the list."

type tsStep struct {
	Result tsCall   `json:"result"`
	Lists  int      `json:"lists"`
	Tools  []string `json:"tools"`
}

// TestTSClient_ToolsAddedLater: tools an upstream adds after the
// TypeScript SDK client connected reach it. Each change upstream is one
// tools/list_changed, on which the SDK lists again (its listChanged
// option): an eager addition is listed under its exposed name and can be
// called, a deferred one is found by mcp_search and callable after it,
// and a removed tool leaves the list and its call is refused.
func TestTSClient_ToolsAddedLater(t *testing.T) {
	t.Parallel()
	env := serveEnv(t)
	f := runTSClient(t, env, "changes", "--recipe", changesRecipe(t, env), "serve", "--agent", "changer")
	var start []string
	var added, deferred, searched, removed tsStep
	var late, deferredBefore, deferredAfter, lateAfter tsCall
	f.get(t, "start", &start)
	f.get(t, "added", &added)
	f.get(t, "late", &late)
	f.get(t, "deferred", &deferred)
	f.get(t, "deferredBefore", &deferredBefore)
	f.get(t, "searched", &searched)
	f.get(t, "deferredAfter", &deferredAfter)
	f.get(t, "removed", &removed)
	f.get(t, "lateAfter", &lateAfter)

	if !slices.Contains(start, "fake__add_named") || slices.Contains(start, "fake__late") || slices.Contains(start, "mcp_search") {
		t.Errorf("tools at start = %v, want fake__add_named, no fake__late and no mcp_search", start)
	}
	refused := func(name string) tsCall {
		return tsCall{Text: name + " is not one of the tools this server lists; mcp_search finds more tools", IsError: true}
	}
	for _, c := range []struct {
		name    string
		step    tsStep
		has     []string
		hasNot  []string
		call    tsCall
		wantOut tsCall
	}{
		{"eager addition", added, []string{"fake__late"}, []string{"fake__late_deferred"}, late, tsCall{Text: "late"}},
		{"deferred addition", deferred, []string{"fake__late", "mcp_search"}, []string{"fake__late_deferred"}, deferredBefore, refused("fake__late_deferred")},
		{"mcp_search", searched, []string{"fake__late_deferred"}, nil, deferredAfter, tsCall{Text: "late_deferred"}},
		{"removal", removed, []string{"fake__late_deferred"}, []string{"fake__late"}, lateAfter, refused("fake__late")},
	} {
		if c.step.Result.IsError || c.step.Lists != 1 {
			t.Errorf("%s: %+v, then %d tools/list_changed; want one", c.name, c.step.Result, c.step.Lists)
		}
		for _, name := range c.has {
			if !slices.Contains(c.step.Tools, name) {
				t.Errorf("%s: the list the SDK fetched lacks %s: %v", c.name, name, c.step.Tools)
			}
		}
		for _, name := range c.hasNot {
			if slices.Contains(c.step.Tools, name) {
				t.Errorf("%s: the list the SDK fetched holds %s: %v", c.name, name, c.step.Tools)
			}
		}
		if c.call != c.wantOut {
			t.Errorf("%s: call = %+v, want %+v", c.name, c.call, c.wantOut)
		}
	}
	if !strings.Contains(searched.Result.Text, "fake__late_deferred") {
		t.Errorf("mcp_search late_deferred = %q", searched.Result.Text)
	}
}

// TestTSClient_Instructions: the instructions the TypeScript SDK client
// gets from mcp serve hold each upstream's own, as server-everything
// gives them to a client of its own and as the fake server was given
// them, each under its server id; server-memory has none and is not named.
func TestTSClient_Instructions(t *testing.T) {
	t.Parallel()
	env := serveEnv(t)
	f := runTSClient(t, env, "instructions", "--recipe", changesRecipe(t, env), "serve", "--agent", "changer")
	var served, everything string // null: none
	f.get(t, "served", &served)
	f.get(t, "everything", &everything)
	if !strings.Contains(everything, "Everything Server") {
		t.Fatalf("server-everything's own instructions = %q", everything)
	}
	want := "Server everything (its tools are named everything__TOOL):\n" + strings.TrimSpace(everything) +
		"\n\nServer fake (its tools are named fake__TOOL):\n" + fakeInstructions
	if served != want {
		t.Errorf("instructions = %q\nwant %q", served, want)
	}
}
