package mux

import "testing"

// matches says whether this process's environment is the one s stamped,
// as a multiplexer decides it: by the digest of a fresh stamp.
func matches(s EnvStamp) bool { return StampEnv("MCP_TEST_WHICH").Digest == s.Digest }

func TestEnvStamp(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "one")
	s := StampEnv("MCP_TEST_WHICH")
	if !matches(s) {
		t.Fatal("a stamp does not match the environment it was made in")
	}
	t.Setenv("MCP_TEST_WHICH", "x") // ignored: says which multiplexer
	t.Setenv("PWD", "/elsewhere")   // the shell's own
	if !matches(s) {
		t.Error("an ignored or shell variable changed the match")
	}
	t.Setenv("MCP_TEST_TOKEN", "two")
	if matches(s) {
		t.Error("a changed value still matches")
	}
	t.Setenv("MCP_TEST_TOKEN", "one")
	t.Setenv("MCP_TEST_NEW", "1")
	if matches(s) {
		t.Error("a new variable still matches")
	}
}
