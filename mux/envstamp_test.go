package mux

import "testing"

func TestEnvStamp(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "one")
	s := StampEnv("MCP_TEST_WHICH")
	if !s.Matches("MCP_TEST_WHICH") {
		t.Fatal("a stamp does not match the environment it was made in")
	}
	t.Setenv("MCP_TEST_WHICH", "x") // ignored: says which multiplexer
	t.Setenv("PWD", "/elsewhere")   // the shell's own
	if !s.Matches("MCP_TEST_WHICH") {
		t.Error("an ignored or shell variable changed the match")
	}
	t.Setenv("MCP_TEST_TOKEN", "two")
	if s.Matches("MCP_TEST_WHICH") {
		t.Error("a changed value still matches")
	}
	t.Setenv("MCP_TEST_TOKEN", "one")
	t.Setenv("MCP_TEST_NEW", "1")
	if s.Matches("MCP_TEST_WHICH") {
		t.Error("a new variable still matches")
	}
}
