//go:build linux

package upstream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
	"github.com/mcpsh/mcp/manifests"
)

// startRunner starts ep as the engine does: the shortcut first, then the
// connection.
func startRunner(t *testing.T, ep manifests.Endpoint) error {
	t.Helper()
	ep, err := DirectCommand(ep)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, ep, Options{ConnectTimeout: 10 * time.Second})
	if err == nil {
		_ = c.Close()
	}
	return err
}

// A project with no package.json of its own, in a sticky directory others
// may write (as /tmp), where another user installed the package its server
// names: npm's local prefix is that directory, and npx would run the other
// user's package. The server is refused: it does not start, neither the
// installed binary nor the runner runs, and the error (exit code 4) names
// what another user owns and who that is.
func TestDirectCommand_refusesAnotherUsersPackage(t *testing.T) {
	base, x := worldWritable(t)
	p := localuser.New(t)
	marker := filepath.Join(base, "planted-ran")
	plantPackage(t, p, x, marker)
	planted := filepath.Join(x, "node_modules", ".bin", "mcp-server-everything")

	// A runner as npx is: it runs the package installed where npm looks.
	runnerRan := filepath.Join(base, "runner-ran")
	npx := filepath.Join(base, "bin", "npx")
	must(t, os.MkdirAll(filepath.Dir(npx), 0o755))
	must(t, os.WriteFile(npx, []byte("#!/bin/sh\necho ran > "+runnerRan+"\nexec "+planted+" \"$@\"\n"), 0o755))

	proj := filepath.Join(x, "proj")
	must(t, os.Mkdir(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte(`{}`), 0o644))
	err := startRunner(t, manifests.Endpoint{ID: "everything", Command: npx, Args: plantedArgs, Cwd: proj})

	want := "server everything not started: " + filepath.Join(x, "node_modules") + " belongs to " + p.Owner() +
		": npx would run another user's package; remove it or install it yourself"
	var ue *UnavailableError
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	if !errors.As(err, &ue) || exit.Code(err) != exit.Upstream {
		t.Errorf("error %T, exit code %d; want *UnavailableError, %d", err, exit.Code(err), exit.Upstream)
	}
	for _, f := range []struct{ path, what string }{{marker, "the planted binary"}, {runnerRan, "the runner"}} {
		if _, err := os.Stat(f.path); err == nil {
			t.Errorf("%s ran", f.what)
		}
	}
}
