package mux

import (
	"io"
	"os"

	"github.com/mcpsh/mcp/internal/handoff"
)

// readLaunch reads the launch secret, once, from the handle
// MCP_MUX_LAUNCH_FD names (handOver put it there), and closes it; the
// variable goes too. Its writer closed it before this process started,
// so the read ends at the secret's end. A handle that gives more than a
// secret gives none.
func readLaunch() string {
	v, ok := os.LookupEnv(launchFDEnv)
	os.Unsetenv(launchFDEnv)
	if !ok {
		return ""
	}
	f := handoff.File(v, "launch")
	if f == nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLaunch+1))
	if err != nil || len(b) > maxLaunch {
		return ""
	}
	return string(b)
}
