package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

// The multiplexer is this binary started as `mcp __mux`, with what to
// serve in the environment: a session's id in MCP_SESSION, or the recipe
// in MCP_MUX_SPEC. It is not a verb: nobody types it, and inside a session
// it can only ever serve that session.
const (
	daemonArg   = "__mux"
	specEnv     = "MCP_MUX_SPEC"
	noMuxEnv    = "MCP_NO_MUX"        // set: always connect directly
	idleEnv     = "MCP_MUX_IDLE"      // how long an idle multiplexer outside a session lives
	upIdleEnv   = "MCP_UPSTREAM_IDLE" // how long an unused upstream connection stays open
	defaultIdle = 10 * time.Minute
)

func init() {
	mux.RegisterWireError[auth.LoginRequiredError]("login_required")
	mux.RegisterWireError[auth.NoClientError]("no_client")
	mux.RegisterWireError[auth.NoOAuthError]("no_oauth")
	mux.RegisterWireError[session.NotFoundError]("no_session")
}

// daemonSpec is what a multiplexer outside a session serves.
type daemonSpec struct {
	Root  string `json:"root"`
	User  bool   `json:"user,omitempty"`
	Agent string `json:"agent,omitempty"`
}

// runDaemon is the multiplexer's main. Its stderr is its log file.
func runDaemon(stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	sessionID, inSession := os.LookupEnv(sessionEnv)
	var spec daemonSpec
	if !inSession {
		if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil || spec.Root == "" {
			mux.Ready(errors.New("no configuration to serve"), false)
			return exit.Usage
		}
	}
	socket, err := socketFor(sessionID, inSession, spec)
	if err != nil {
		mux.Ready(err, false)
		return exit.Upstream
	}
	ln, release, err := mux.Listen(socket)
	if err != nil {
		mux.Ready(err, false)
		return exit.Upstream
	}
	defer release()
	label := "recipe " + spec.Root
	if spec.User {
		label = "your own configuration, from " + spec.Root
	}
	if spec.Agent != "" {
		label += ", agent " + spec.Agent
	}
	if inSession {
		label = "session " + sessionID
	}
	opts := mux.DaemonOptions{
		Label:        label,
		Logger:       log,
		IgnoreEnv:    selectorEnv,
		Idle:         envDuration(idleEnv, defaultIdle),
		UpstreamIdle: envDuration(upIdleEnv, defaultIdle),
		NewEngine: func(cfg *mux.Config) *mux.Engine {
			return newEngineFor(cfg.Surface, cfg.Endpoints, func(line string) { log.Info(line) })
		},
	}
	if inSession {
		opts.Session = sessionID
		opts.Idle = 0 // a session's multiplexer lives as long as the session
		opts.Load = func() (*mux.Config, error) { return sessionConfig(sessionID) }
		opts.Alive = func() bool {
			_, err := session.Load(sessionID)
			var nf *session.NotFoundError
			return !errors.As(err, &nf)
		}
	} else {
		opts.Load = func() (*mux.Config, error) { return hostConfig(spec) }
	}
	d, err := mux.NewDaemon(opts)
	if err != nil {
		ln.Close()
		mux.Ready(err, true)
		return exit.Config
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	log.Info("multiplexer started", "pid", os.Getpid(), "session", inSession)
	mux.Ready(nil, false)
	if err := d.Serve(ctx, ln); err != nil {
		log.Warn("closing upstream connections", "err", err)
	}
	log.Info("multiplexer stopped")
	return exit.OK
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d >= 0 {
		return d
	}
	return def
}

func hostConfig(spec daemonSpec) (*mux.Config, error) {
	r, err := readRecipe(spec.Root, spec.User)
	if err != nil {
		return nil, err
	}
	s, warns, err := catalog.Resolve(r, spec.Agent)
	if err != nil {
		return nil, err
	}
	return &mux.Config{Surface: s, Endpoints: r.Endpoints, Warnings: append(slices.Clone(r.Warnings), warns...),
		Watch: watchList(r)}, nil
}

// sessionConfig keeps the surface the session started with and re-reads
// the endpoints, so that rotated credentials are picked up.
func sessionConfig(id string) (*mux.Config, error) {
	st, err := session.Load(id)
	if err != nil {
		return nil, err
	}
	r, err := readRecipe(st.Root, st.User)
	if err != nil {
		return nil, err
	}
	return &mux.Config{Surface: st.Surface, Endpoints: r.Endpoints, Watch: watchList(r)}, nil
}

// watchList is every file the recipe was read from and the directories
// where files it would read may appear.
func watchList(r *manifests.Recipe) []string {
	list := slices.Clone(r.Files)
	if !r.User {
		list = append(list, r.Root, filepath.Join(r.Root, ".pi"), filepath.Join(r.Root, "agents"))
	}
	var out []string
	for _, p := range list {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// selectorEnv are the variables that only say which multiplexer to run; they
// are not part of the environment its servers inherit.
var selectorEnv = []string{sessionEnv, specEnv, noMuxEnv}

// socketFor is the socket of the multiplexer for a session, or for a
// recipe, agent and build of this binary outside one.
func socketFor(sessionID string, inSession bool, spec daemonSpec) (string, error) {
	return mux.SocketPath(daemonKey(sessionID, inSession, spec))
}

func daemonKey(sessionID string, inSession bool, spec daemonSpec) string {
	h := sha256.New()
	if inSession {
		fmt.Fprintf(h, "session\x00%s", sessionID)
	} else {
		fmt.Fprintf(h, "host\x00%s\x00%v\x00%s\x00%s", spec.Root, spec.User, spec.Agent, exeStamp())
	}
	return hex.EncodeToString(h.Sum(nil)[:10])
}

// exeStamp identifies this build of the binary, so that a rebuilt mcp
// never talks to a multiplexer of the old one.
func exeStamp() string {
	exe, err := os.Executable()
	if err != nil {
		return versionString()
	}
	st, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return exe + "\x00" + strconv.FormatInt(st.Size(), 10) + "\x00" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}

// daemonCommand is the command that starts the multiplexer of a session
// (inSession) or of spec.
func daemonCommand(sessionID string, inSession bool, spec daemonSpec) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, daemonArg)
	cmd.Args[0] = "mcp"
	cmd.Env = []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != sessionEnv && k != specEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if inSession {
		cmd.Env = append(cmd.Env, sessionEnv+"="+sessionID)
	} else {
		b, _ := json.Marshal(spec)
		cmd.Env = append(cmd.Env, specEnv+"="+string(b))
	}
	// The multiplexer's working directory never matters to it; / never
	// keeps a directory busy.
	cmd.Dir = "/"
	return cmd, nil
}

// openLog opens the multiplexer's log next to its socket (0600).
func openLog(socket string) (*os.File, error) {
	return os.OpenFile(socket+".log", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}
