//go:build unix

package main

import (
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// mcp run's exit codes are those of mcp call: a tool outside the surface is
// 3 however the program reaches it, and the time limit is 4 and is the one
// the user gave.
func TestRunExitCodes(t *testing.T) {
	m := newMuxEnv(t)
	const na = "NotAvailableError: fake.drop_table is not available: the recipe does not authorize it, or the server has no such tool"
	m.expect(exit.NotAvailable, na, "--agent", "narrow", "run", "-e", `await fake.drop_table({})`)
	m.expect(exit.NotAvailable, na, "--agent", "narrow", "run", "-e", `await mcp.call("fake.drop_table", {})`)
	m.expect(exit.NotAvailable, "fake.drop_table is not available", "--agent", "narrow", "call", "fake.drop_table")
	if out := m.must("--agent", "narrow", "run", "-e", `["drop_table" in fake, "echo" in fake]`); strings.TrimSpace(out) != "[false,true]" {
		t.Errorf(`"drop_table" in fake: got %s, want [false,true]`, out)
	}
	m.expect(exit.Upstream, "mcp: error: program exceeded its time limit of 2s\n", "run", "-e", `while (true) {}`, "--timeout", "2s")
}
