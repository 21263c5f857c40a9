package script

import (
	"os"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
)

func TestMain(m *testing.M) {
	// The test binary is also the process RunIsolated starts.
	if len(os.Args) == 2 && os.Args[1] == ChildArg {
		os.Exit(ChildMain(os.Stderr))
	}
	// A program the tests abandon in a backtracking regular expression
	// would otherwise spin for the rest of the test binary's life.
	regexp2.DefaultMatchTimeout = 3 * time.Second
	// What a program's calls save goes to a directory of the tests' own.
	tmp, err := os.MkdirTemp("", "script-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	os.Unsetenv("XDG_RUNTIME_DIR")
	os.Setenv("XDG_CACHE_HOME", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}
