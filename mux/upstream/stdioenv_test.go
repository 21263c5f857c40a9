package upstream

import (
	"testing"

	"github.com/mcpsh/mcp/internal/testenv"
)

// A stdio server gets the base set, the host variables its entry passes
// on, and its entry's env: not the host's tokens, another server's
// secret or the terminal's own variables, which it used to inherit.
func TestConnect_declaredEnv(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_host_secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "host-aws-secret")
	t.Setenv("TERM_SESSION_ID", "tab-1")
	t.Setenv("MCP_TEST_PASS_ONE", "passed by prefix")
	t.Setenv("MCP_TEST_NAMED", "passed by name")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
	t.Setenv("TZ", "UTC")
	ep := testenv.FakeServer(t, testenv.ModeDefault)
	ep.PassEnv = []string{"MCP_TEST_PASS_*", "MCP_TEST_NAMED"}
	ep.Env["TZ"] = "Europe/Paris"
	u := connect(t, ep, Options{})
	for name, want := range map[string]string{
		"GITHUB_TOKEN":          "",
		"AWS_SECRET_ACCESS_KEY": "",
		"TERM_SESSION_ID":       "",
		"MCP_TEST_PASS_ONE":     "passed by prefix",
		"MCP_TEST_NAMED":        "passed by name",
		"LANG":                  "C.UTF-8",
		"HTTPS_PROXY":           "http://proxy.invalid:3128",
		"TZ":                    "Europe/Paris", // the entry's env wins
	} {
		if got := text(t, call(t, u, "getenv", `{"name":"`+name+`"}`)); got != want {
			t.Errorf("the server's %s = %q, want %q", name, got, want)
		}
	}
	if got := text(t, call(t, u, "getenv", `{"name":"PATH"}`)); got == "" {
		t.Error("the server got no PATH")
	}
}
