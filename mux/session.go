package mux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
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

// StartSession saves the state of a new session, starts its multiplexer
// and binds its required servers through it, returning how many tools
// they have. The session's calls go through that multiplexer only, so a
// session whose multiplexer cannot start does not start. Where no
// multiplexer can run (a system without them: its socket is "") it binds
// them directly, which checks them but keeps nothing warm. On failure the multiplexer is
// stopped; the state, once saved, is the caller's to remove.
func StartSession(ctx context.Context, st *session.State, o OpenOptions) (int, error) {
	t := SessionTarget(st.ID, st.Socket)
	t.launch, st.Launch = session.NewLaunch()
	if err := session.Save(st); err != nil {
		return 0, &SaveError{Err: err}
	}
	var b Binder
	if st.Socket != "" {
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

// UnreachableError says the guest of a session could not reach its socket.
type UnreachableError struct {
	User, Dir string
	Mode      os.FileMode
}

func (e *UnreachableError) ExitCode() int { return exit.Usage }

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("user %s cannot reach the session's socket: it may not pass through %s (mode %04o)", e.User, e.Dir, e.Mode.Perm())
}

// SaveError says a new session's state could not be saved.
type SaveError struct{ Err error }

func (e *SaveError) Error() string { return "saving session state: " + e.Err.Error() }
func (e *SaveError) Unwrap() error { return e.Err }

// ErrNoGuests refuses a session for another local user where
// GuestsSupported is false.
var ErrNoGuests = errors.New("sharing a session with another user needs Linux, macOS or FreeBSD, where the multiplexer can tell who connects")

// SessionSocket is where the multiplexer of a new session id will listen:
// in the user's private directory, or for a session shared with guest, a
// local user (Linux, macOS, FreeBSD), in a directory of its own that that user can
// reach. Where no multiplexer runs it is "".
func SessionSocket(id string, guest *session.Guest) (string, error) {
	switch {
	case guest != nil:
		return sharedSocket(id, guest)
	case !Supported:
		return "", nil
	}
	return SocketPath(SessionTarget(id, "").Key())
}

// StopSession stops a session's multiplexer, if one runs, and waits until
// it has closed every upstream connection and exited. The directory made
// for another user's session goes with it.
func StopSession(ctx context.Context, st *session.State) error {
	if st.Socket == "" {
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
