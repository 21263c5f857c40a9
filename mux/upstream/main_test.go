package upstream

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/mcpsh/mcp/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.FakeServerMain()
	code := m.Run()
	// Every server a test started must have been reaped.
	if runtime.GOOS == "linux" && code == 0 {
		if z := ourZombies(); len(z) > 0 {
			fmt.Fprintf(os.Stderr, "unreaped child processes left behind: %v\n", z)
			code = 1
		}
	}
	os.Exit(code)
}
