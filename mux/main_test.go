package mux

import (
	"os"
	"testing"

	"github.com/mcpsh/mcp/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.FakeServerMain()
	os.Exit(m.Run())
}
