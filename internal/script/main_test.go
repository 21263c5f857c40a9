package script

import (
	"os"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
)

func TestMain(m *testing.M) {
	// A program the tests abandon in a backtracking regular expression
	// would otherwise spin for the rest of the test binary's life.
	regexp2.DefaultMatchTimeout = 3 * time.Second
	os.Exit(m.Run())
}
