package mux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/mux/upstream"
)

// defaultIdle is how long an idle multiplexer outside a session, and an
// unused upstream connection, live unless MCP_MUX_IDLE and
// MCP_UPSTREAM_IDLE say otherwise.
const defaultIdle = 10 * time.Minute

// Main is the multiplexer process: `mcp __mux`, started by Open or
// StartSession with its target in the environment. It serves the target's
// socket until it is stopped, idle, or its session ends, and returns the
// exit code. Its stderr is its log file. opts configure its upstream
// connections; requests for input are logged.
//
// Everything logged goes through opts.Secrets (a new set when nil), which
// holds the secrets of every endpoint served and gathers the tokens the
// connections obtain: the log holds none of them.
func Main(stderr io.Writer, opts upstream.Options) int {
	if opts.Secrets == nil {
		opts.Secrets = new(redact.Set)
	}
	log := newLog(stderr, opts.Secrets)
	// What logs through the default loggers goes the same way.
	slog.SetDefault(log)
	privdir.OnWarning(func(line string) { log.Warn(line) })
	// What keeps it from serving is told to whoever started it, and
	// written on stderr: its log, or the terminal of someone who ran it.
	fail := func(err error, config bool, code int) int {
		Ready(err, config)
		if !errors.Is(err, ErrBusy) {
			fmt.Fprintf(stderr, "mcp: error: %s\n", strings.Join(strings.Fields(opts.Secrets.Text(err.Error())), " "))
		}
		return code
	}
	t, err := targetFromEnv()
	if err != nil {
		return fail(err, false, exit.Usage)
	}
	socket, err := t.Socket()
	if err != nil {
		return fail(err, false, exit.Upstream)
	}
	ln, release, err := Listen(socket)
	if err != nil {
		return fail(err, false, exit.Upstream)
	}
	defer release()
	if err := t.claim(); err != nil {
		ln.Close()
		return fail(err, false, exit.Usage)
	}
	if t.guest != nil {
		if err := shareSocket(socket); err != nil {
			ln.Close()
			return fail(err, false, exit.Upstream)
		}
	}
	opts.OnElicitation = func(e upstream.Elicitation) { log.Info(e.String()) }
	warnings := &ConnWarnings{}
	opts.OnWarning = func(line string) {
		log.Warn(line)
		warnings.Add(line)
	}
	dopts := daemonOptions(t, log, opts)
	dopts.ConnWarnings = warnings
	d, err := New(dopts)
	if err != nil {
		ln.Close()
		return fail(err, true, exit.Config)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	log.Info("multiplexer started", "pid", os.Getpid(), "session", t.InSession)
	Ready(nil, false)
	if err := d.Serve(ctx, ln); err != nil {
		log.Warn("closing upstream connections", "err", err)
	}
	log.Info("multiplexer stopped")
	return exit.OK
}

// newLog is the multiplexer's log: text records written to w without any
// of secrets.
func newLog(w io.Writer, secrets *redact.Set) *slog.Logger {
	return slog.New(slog.NewTextHandler(secrets.Writer(w), &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func daemonOptions(t Target, log *slog.Logger, opts upstream.Options) Options {
	d := Options{
		Label:        t.label(),
		Why:          t.why(),
		Logger:       log,
		Idle:         envDuration(idleEnv, defaultIdle),
		UpstreamIdle: envDuration(upIdleEnv, defaultIdle),
		NewEngine:    func(cfg *Config) *Engine { return NewEngineFor(cfg, opts) },
		Load:         t.Load,
	}
	if !t.InSession {
		d.Identity = t.Env
		d.IdentityOf = func(cfg *Config) string { return envIdentity(cfg.Endpoints, os.Environ()) }
	}
	if t.InSession {
		d.Session = t.Session
		if t.guest != nil {
			d.Guest = &t.guest.UID
		}
		d.Idle = 0 // a session's multiplexer lives as long as the session
		d.Alive = func() bool {
			_, err := session.Load(t.Session)
			var nf *session.NotFoundError
			return !errors.As(err, &nf)
		}
	}
	return d
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d >= 0 {
		return d
	}
	return def
}
