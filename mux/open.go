package mux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/mux/upstream"
)

// OpenOptions configure Open and StartSession.
type OpenOptions struct {
	// Upstream configures the connections of an engine in this process,
	// when there is no multiplexer.
	Upstream upstream.Options
	// Warn hears, one line each, what the configuration's reader noticed
	// and that no multiplexer could be used.
	Warn func(string)
	// Connecting, if set, is called when a request has to wait for a
	// server to be started or reached; the function it returns is called
	// once the wait is over.
	Connecting func(server string) (done func())
	// Note hears, once for each server, a server of the user's
	// configuration start that came from an editor's file ("starting
	// memory from ~/.claude.json").
	Note func(string)
}

func (o OpenOptions) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// Open returns what the verbs talk to for t. Inside a session that is the
// session's own multiplexer and nothing else (sessionClient). Outside one
// it is the target's multiplexer, started when it is not running, or where
// none can run or should (MCP_NO_MUX, a system without them, a binary that
// `go run` will delete, a target trusted for this invocation only) an
// engine in this process. When a multiplexer cannot be
// started, Open says so and connects directly; when the multiplexer could
// not read the configuration, the direct path reads it again and says
// what is wrong.
func Open(ctx context.Context, t Target, o OpenOptions) (Backend, error) {
	if t.InSession && Supported {
		return t.sessionClient(ctx, o)
	}
	if !direct(t) {
		c, err := t.client(ctx, o)
		if err == nil {
			return c, nil
		}
		var se *StartError
		if !errors.As(err, &se) || !se.Config {
			if ctx.Err() != nil {
				return nil, err
			}
			o.warn("the multiplexer is unavailable (%s); connecting directly", clip.Line(err.Error()))
		}
	}
	cfg, err := t.Load()
	if cfg != nil && !t.InSession {
		for _, w := range cfg.Warnings {
			o.warn("%s", w)
		}
	}
	if err != nil {
		return nil, err
	}
	eng := NewEngineFor(cfg, o.Upstream)
	eng.waitNote = noteOnce(cfg.notes, o.Note)
	return eng, nil
}

// direct says whether t, outside a session, is served in this process
// rather than by a multiplexer.
func direct(t Target) bool {
	if !Supported || t.TrustOnce || os.Getenv(NoMuxEnv) != "" {
		return true
	}
	// go run deletes this binary when it exits; a multiplexer of its
	// build would serve no later invocation.
	return goRunBinary()
}

// goRunBinary says whether this binary was built by `go run`, which keeps
// it in a temporary go-build directory and deletes it on exit.
func goRunBinary() bool {
	exe, err := os.Executable()
	return err == nil && IsGoRunPath(exe)
}

// IsGoRunPath says whether exe is where `go run` puts the binary it builds.
func IsGoRunPath(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

// sessionClient is a client of the session's own multiplexer, on the
// socket MCP_SESSION names, the one session start started with its own
// environment. Inside a session the CLI never starts a multiplexer, never
// connects directly and reads no file of the user who started the session
// (it may run as another user), so nothing the agent's shell sets
// (MCP_NO_MUX, XDG_RUNTIME_DIR, TMPDIR, the variables that ${VAR} names)
// chooses which servers are reached, where requests go or what
// credentials they carry. Every request names the session; a multiplexer
// serving anything else refuses it. A session whose multiplexer is gone
// has ended.
func (t Target) sessionClient(ctx context.Context, o OpenOptions) (*Client, error) {
	if !session.ValidID(t.Session) || t.socket == "" {
		return nil, &session.BadEnvError{Value: t.Session}
	}
	c, err := dialAs(ctx, t.socket, t.host, t.Session)
	if errors.Is(err, ErrNotRunning) {
		return nil, &SessionDownError{Session: t.Session}
	}
	if err != nil {
		return nil, err
	}
	c.connecting = o.Connecting
	return c, nil
}

// SessionDownError says a session's multiplexer is not running: the
// session cannot be used any more.
type SessionDownError struct{ Session string }

func (e *SessionDownError) ExitCode() int { return exit.Upstream }

func (e *SessionDownError) Error() string {
	return fmt.Sprintf("session %s has no multiplexer running: it has ended, or MCP_SESSION is not what session start printed", e.Session)
}

// WrongSessionError says the multiplexer MCP_SESSION names serves another
// session, or none.
type WrongSessionError struct{ Session string }

func (e *WrongSessionError) ExitCode() int { return exit.Usage }

func (e *WrongSessionError) Error() string {
	if e.Session == "" {
		return "this multiplexer serves a session: only the session's own processes may use it"
	}
	return fmt.Sprintf("the multiplexer that MCP_SESSION names does not serve session %s: MCP_SESSION is not what session start printed", e.Session)
}

// client is a client of t's multiplexer, started when none is running.
// Outside a session that is the multiplexer of this process's environment
// as the target's servers see it (Identified): another terminal's, tab's
// or SSH login's is the same one, and one whose servers would see other
// values runs beside it, never stopped by this one.
func (t Target) client(ctx context.Context, o OpenOptions) (*Client, error) {
	t = t.Identified()
	socket, err := t.Socket()
	if err != nil {
		return nil, err
	}
	start := func(ctx context.Context) (*Client, error) {
		return Ensure(ctx, socket, func() (*exec.Cmd, error) {
			cmd, err := t.command()
			if err != nil {
				return nil, err
			}
			if f, err := openLog(socket); err == nil {
				cmd.Stderr = f // closed by Ensure once the child has its copy
			}
			return cmd, nil
		})
	}
	c, err := start(ctx)
	if err != nil {
		return nil, err
	}
	c.connecting = withNote(o.Connecting, noteOnce(t.notes, o.Note))
	c.session = t.Session
	if !t.InSession {
		c.warn = o.Warn
		c.env = t.Env
	}
	return c, nil
}

// Binder connects to a server and lists its tools, never from the cache,
// as a required server must be bound at launch.
type Binder interface {
	Bind(ctx context.Context, server string) ([]catalog.Tool, error)
}

// BindError says a required server could not be bound at launch.
type BindError struct {
	Server string
	Err    error
}

func (e *BindError) Error() string {
	return fmt.Sprintf("session not started: required server %s: %v", e.Server, e.Err)
}

func (e *BindError) Unwrap() error { return e.Err }
