package mux

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
)

// BindRequired binds the surface's required servers in parallel, as a
// session and tools mode must at launch, and returns how many tools they
// have; the first failure is a *BindError naming the server.
func BindRequired(ctx context.Context, s *catalog.Surface, b Binder) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	counts := make([]int, len(s.Servers))
	for i, srv := range s.Servers {
		if !srv.Required {
			continue
		}
		g.Go(func() error {
			tools, err := b.Bind(gctx, srv.ID)
			if err != nil {
				if errors.Is(err, context.Canceled) && ctx.Err() == nil {
					return nil // another server failed first
				}
				return &BindError{Server: srv.ID, Err: err}
			}
			counts[i] = len(tools)
			return nil
		})
	}
	err := g.Wait()
	n := 0
	for _, c := range counts {
		n += c
	}
	return n, err
}

// StartSession starts the multiplexer of a session whose state is saved
// and binds its required servers through it, returning how many tools
// they have. The session's calls go through that multiplexer only, so a
// session whose multiplexer cannot start does not start. Where no
// multiplexer can run (a system without them) it binds them directly,
// which checks them but keeps nothing warm. On failure the multiplexer is
// stopped; the state is the caller's to remove.
func StartSession(ctx context.Context, st *session.State, o OpenOptions) (int, error) {
	t := SessionTarget(st.ID, st.Socket)
	var b Binder
	if Supported {
		c, err := t.client(ctx, o)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		b = c
	} else {
		cfg, err := t.Load()
		if err != nil {
			return 0, err
		}
		eng := NewEngineFor(cfg, o.Upstream)
		defer eng.Close()
		b = eng
	}
	n, err := BindRequired(ctx, st.Surface, b)
	if err != nil {
		_ = StopSession(ctx, st)
	}
	return n, err
}

// SessionSocket is where the multiplexer of a new session id will listen:
// in the user's private directory, or for a session shared with another
// user (Linux only) in a directory of its own that that user can reach.
// Where no multiplexer runs it is "".
func SessionSocket(id string, shared bool) (string, error) {
	switch {
	case shared:
		return sharedSocket(id)
	case !Supported:
		return "", nil
	}
	return SocketPath(SessionTarget(id, "").Key())
}

// StopSession stops a session's multiplexer, if one runs, and waits until
// it has closed every upstream connection and exited. The directory made
// for another user's session goes with it.
func StopSession(ctx context.Context, st *session.State) error {
	if !Supported || st.Socket == "" {
		return nil
	}
	if err := Shutdown(ctx, st.Socket, 10*time.Second); err != nil {
		return err
	}
	if st.Guest != nil {
		return removeSharedDir(st.Socket)
	}
	return nil
}
