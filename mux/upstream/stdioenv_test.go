package upstream

import (
	"testing"

	"github.com/mcpsh/mcp/internal/testenv"
)

// A stdio server inherits this process's environment but the variables
// Options.OmitEnv names; a value the endpoint's env sets reaches it all
// the same.
func TestConnect_omitEnv(t *testing.T) {
	t.Setenv("MCP_TEST_OMITTED", "from mcp")
	t.Setenv("MCP_TEST_SET", "from mcp")
	t.Setenv("MCP_TEST_KEPT", "inherited")
	ep := testenv.FakeServer(t, testenv.ModeDefault)
	ep.Env["MCP_TEST_SET"] = "from the endpoint"
	u := connect(t, ep, Options{OmitEnv: []string{"MCP_TEST_OMITTED", "MCP_TEST_SET"}})
	for name, want := range map[string]string{"MCP_TEST_OMITTED": "", "MCP_TEST_SET": "from the endpoint", "MCP_TEST_KEPT": "inherited"} {
		if got := text(t, call(t, u, "getenv", `{"name":"`+name+`"}`)); got != want {
			t.Errorf("the server's %s = %q, want %q", name, got, want)
		}
	}
}
