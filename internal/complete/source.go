package complete

import (
	"context"
	"os"

	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
	"github.com/mcpsh/mcp/mux/upstream"
)

// Host is the Source outside a session: the recipe --recipe names, else
// the nearest one at or above the working directory, else the user's
// configuration (as mcp list finds it), with the agent's surface, and each
// server's tools as the catalog cache last recorded them for a connection
// such as mcp list's. A server not listed yet has none, and so has a
// server of an untrusted directory; nothing is started.
func Host(ctx context.Context, recipe, agent string) (*mux.Catalog, error) {
	root, user := recipe, false
	if root == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		loc, err := manifests.Locate(cwd)
		if err != nil {
			return nil, err
		}
		root, user = loc.Root, loc.User
	}
	t, err := mux.HostTarget(root, user, agent)
	if err != nil {
		return nil, err
	}
	cfg, err := t.Load()
	if err != nil {
		return nil, err
	}
	// An engine that only reads the cache: Seen connects nothing.
	eng := mux.NewEngineFor(cfg, upstream.Options{})
	defer eng.Close()
	return eng.Catalog(ctx, mux.Seen)
}

// Session is the Source inside the session MCP_SESSION's value names: one
// request to its multiplexer, for what it has seen (its connections' lists
// and the catalog cache), which starts no server. Nothing of the host is
// read: the session's surface is the multiplexer's to say.
func Session(env string) Source {
	return func(ctx context.Context, _, _ string) (*mux.Catalog, error) {
		t, err := mux.SessionEnvTarget(env)
		if err != nil || !mux.Supported {
			return nil, err // without sockets there is no session to ask
		}
		b, err := mux.Open(ctx, t, mux.OpenOptions{})
		if err != nil {
			return nil, err
		}
		defer b.Close()
		return b.Catalog(ctx, mux.Seen)
	}
}
