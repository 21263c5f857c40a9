package mux

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
)

// The multiplexer is the mcp binary started as `mcp __mux`, with what to
// serve in its environment: a session in MCP_SESSION (ID:UID@SOCKET), or a
// Target in MCP_MUX_SPEC. It is not a verb: nobody types it, and inside a session it
// can only ever serve that session.
const (
	// Arg is the argument that makes the mcp binary the multiplexer.
	Arg = "__mux"
	// NoMuxEnv set (to anything) makes every invocation connect directly.
	NoMuxEnv = "MCP_NO_MUX"

	specEnv     = "MCP_MUX_SPEC"
	launchFDEnv = "MCP_MUX_LAUNCH_FD" // the descriptor a session's multiplexer reads its launch secret from
	idleEnv     = "MCP_MUX_IDLE"      // how long an idle multiplexer outside a session lives
	upIdleEnv   = "MCP_UPSTREAM_IDLE" // how long an unused upstream connection stays open
)

// launchFD is the descriptor session start hands the launch secret on:
// the first after the ready pipe (readyFD), which Ensure puts before the
// command's own.
const launchFD = 4

// maxLaunch bounds what is read of a launch secret (64 hex digits).
const maxLaunch = 128

// selectorEnv are the variables that only say which multiplexer to run;
// they are not part of the environment its servers inherit.
var selectorEnv = []string{session.EnvVar, specEnv, NoMuxEnv}

// Target is what one multiplexer serves: a session, or outside one a recipe
// (or the user's own configuration, seen from Root) and an agent.
type Target struct {
	// Session is the id of the session served; InSession says there is
	// one (an empty id inside a session is still a session, and fails).
	Session   string `json:"-"`
	InSession bool   `json:"-"`
	// socket is where a session's multiplexer listens: recorded in its
	// state at start, and named by MCP_SESSION inside it.
	socket string
	// host is the user a session's multiplexer runs as, who started the
	// session: this user at start, and named by MCP_SESSION inside it.
	// A client talks to no other listener on the socket.
	host int
	// guest, in a session's multiplexer, is the other user it also serves.
	guest *session.Guest
	// started, in a session's multiplexer, is the session's state as it
	// started: the recipe, agent and surface it serves whatever the state
	// file says later.
	started *session.State
	// launch is the secret a session's multiplexer is started with, which
	// its state holds the digest of (session.NewLaunch). It reaches the
	// multiplexer on a pipe (launchFD), never in an environment.
	launch string

	Root  string `json:"root"`
	User  bool   `json:"user,omitempty"`
	Agent string `json:"agent,omitempty"`
	// Env, outside a session, is the digest of what of the environment
	// its servers and configuration see (envIdentity): one multiplexer
	// for each, side by side. Identified fills it in.
	Env string `json:"env,omitempty"`

	// notes, outside a session, are what to say when a server from an
	// editor's file starts (startNotes), as Identified read them.
	notes map[string]string

	// TrustOnce trusts the recipe for this invocation only, as the person
	// at the command line asked (--trust): nothing is recorded, and no
	// multiplexer serves it, so nothing it starts outlives the invocation.
	TrustOnce bool `json:"-"`
}

// SessionTarget is the target of session id, whose multiplexer listens on
// socket, started by this user.
func SessionTarget(id, socket string) Target {
	return Target{Session: id, InSession: true, socket: socket, host: os.Getuid()}
}

// SessionEnvTarget is the target that MCP_SESSION's value v names; a value
// that names no session is a *session.BadEnvError.
func SessionEnvTarget(v string) (Target, error) {
	id, host, socket, err := session.ParseEnv(v)
	if err != nil {
		return Target{}, err
	}
	return Target{Session: id, InSession: true, socket: socket, host: host}, nil
}

// HostTarget is the target outside a session of the recipe at root (or the
// user's configuration with user set) and agent ("" for the package
// boundary). root is made absolute.
func HostTarget(root string, user bool, agent string) (Target, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Target{}, err
	}
	return Target{Root: abs, User: user, Agent: agent}, nil
}

// Key names the target's multiplexers: a session, or a recipe, agent and
// build of this binary, so that a rebuilt mcp never talks to a multiplexer
// of the old one. Outside a session each environment the target's servers
// may see (Env) has a multiplexer of its own, named by both.
func (t Target) Key() string {
	h := sha256.New()
	if t.InSession {
		fmt.Fprintf(h, "session\x00%s", t.Session)
	} else {
		fmt.Fprintf(h, "host\x00%s\x00%v\x00%s\x00%s", t.Root, t.User, t.Agent, exeStamp())
	}
	return hex.EncodeToString(h.Sum(nil)[:10])
}

// Socket is where the target's multiplexer listens.
func (t Target) Socket() (string, error) {
	if t.InSession {
		if t.socket == "" {
			return "", errors.New("the session names no socket")
		}
		return t.socket, nil
	}
	if t.Env == "" {
		return "", errors.New("the multiplexer's environment is not identified")
	}
	return SocketPath(t.SocketKey())
}

// SocketKey is the name of the target's socket, without its directory
// and suffix: a session's key, or outside one the target's key and its
// environment's identity.
func (t Target) SocketKey() string {
	if t.InSession {
		return t.Key()
	}
	return t.Key() + "-" + t.Env
}

// Identified is t with Env filled in outside a session: the digest of
// this process's environment as the servers of the target's recipe, and
// its ${VAR}s, would see it.
func (t Target) Identified() Target { return t.IdentifiedIn(os.Environ()) }

// IdentifiedIn is Identified for a process whose environment is environ.
// A recipe that cannot be read counts with no endpoint; the multiplexer
// started for it says what is wrong.
func (t Target) IdentifiedIn(environ []string) Target {
	if t.InSession || t.Env != "" {
		return t
	}
	var eps map[string]manifests.Endpoint
	if r, err := manifests.Read(t.Root, t.User); err == nil {
		eps, t.notes = r.Endpoints, startNotes(r)
	}
	t.Env = envIdentity(eps, environ)
	return t
}

// exeStamp identifies this build of the binary.
func exeStamp() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	st, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return exe + "\x00" + strconv.FormatInt(st.Size(), 10) + "\x00" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}

// label says what the multiplexer serves, for status.
func (t Target) label() string {
	if t.InSession {
		return "session " + t.Session
	}
	label := "recipe " + t.Root
	if t.User {
		label = "your own configuration, from " + t.Root
	}
	if t.Agent != "" {
		label += ", agent " + t.Agent
	}
	return label
}

// why says why the target has a multiplexer of its own, where that is not
// plain from its label: the user's configuration is served per working
// directory, because the directory's project files and its trust are
// part of it.
func (t Target) why() string {
	if t.InSession || !t.User {
		return ""
	}
	return "one for each working directory: without a recipe, the directory's own MCP files (.mcp.json, .cursor/mcp.json, ...) and its trust are part of what is served"
}

// command starts the target's multiplexer: this binary, with the caller's
// environment less the selector variables, and the target's own. A
// session's gets its launch secret on a pipe of its own (launchFD), which
// Ensure closes in this process once the child has its copy.
func (t Target) command() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, Arg)
	cmd.Args[0] = "mcp"
	cmd.Env = []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != session.EnvVar && k != specEnv && k != launchFDEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if t.InSession {
		f, err := launchPipe(t.launch)
		if err != nil {
			return nil, err
		}
		cmd.ExtraFiles = []*os.File{f}
		cmd.Env = append(cmd.Env, session.EnvVar+"="+session.FormatEnv(t.Session, t.host, t.socket), launchFDEnv+"="+strconv.Itoa(launchFD))
	} else {
		b, _ := json.Marshal(t)
		cmd.Env = append(cmd.Env, specEnv+"="+string(b))
	}
	// The multiplexer's working directory never matters to it; / never
	// keeps a directory busy.
	cmd.Dir = "/"
	return cmd, nil
}

// launchPipe is the read end of a pipe that holds secret and nothing
// more: its write end is closed, so a reader sees its end at once.
func launchPipe(secret string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.WriteString(secret)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// LaunchedForSession says whether this process claims to be a session's
// multiplexer that session start started, by naming the descriptor of its
// launch secret: Main checks the claim against the session's state.
func LaunchedForSession() bool { return os.Getenv(launchFDEnv) != "" }

// targetFromEnv is the target a multiplexer was started for. A session's
// multiplexer listens where the session's state says, and nowhere else,
// and only when session start started it: it holds the launch secret
// whose digest the state keeps, read here from its descriptor, which is
// closed (readLaunch). Main spends the secret once it holds the socket
// (claim).
func targetFromEnv() (Target, error) {
	secret := readLaunch()
	if v, ok := os.LookupEnv(session.EnvVar); ok {
		t, err := SessionEnvTarget(v)
		if err != nil {
			return Target{}, err
		}
		st, err := session.Load(t.Session)
		if err != nil {
			return Target{}, err
		}
		switch {
		case !st.Launched(secret):
			return Target{}, fmt.Errorf("session %s: only session start starts a session's multiplexer", st.ID)
		case st.Socket != t.socket:
			return Target{}, fmt.Errorf("session %s listens on %s, not %s", st.ID, st.Socket, t.socket)
		}
		t.guest, t.started, t.launch = st.Guest, st, secret
		return t, nil
	}
	var t Target
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &t); err != nil || t.Root == "" {
		return Target{}, errors.New("no configuration to serve")
	}
	return t, nil
}

// claim spends a session's launch secret, once its multiplexer holds the
// session's socket (so no other one of the session runs): the state on
// disk, still the one targetFromEnv checked, is saved without the
// secret's digest, and no secret starts another multiplexer for the
// session. The multiplexer serves the state as saved.
func (t *Target) claim() error {
	if !t.InSession {
		return nil
	}
	st, err := session.Load(t.Session)
	if err != nil {
		return err
	}
	if !st.Launched(t.launch) || !st.Same(t.started) {
		return fmt.Errorf("session %s: only session start starts a session's multiplexer", st.ID)
	}
	st.Launch = ""
	if err := session.Save(st); err != nil {
		return fmt.Errorf("session %s: spending the launch secret: %w", st.ID, err)
	}
	t.started, t.launch = st, ""
	return nil
}

// Load reads what the target serves. Outside a session that is the
// recipe's endpoints and the surface of the agent (warnings included, also
// with an error). A session keeps the surface it started with and re-reads
// only the endpoints, so that rotated credentials are picked up.
func (t Target) Load() (*Config, error) {
	// Taken before the files are read: a change after this is seen.
	trust := stampTrustStore()
	if t.InSession {
		st, err := session.Load(t.Session)
		if err != nil {
			return nil, err
		}
		if t.started != nil {
			if !t.started.Same(st) {
				return nil, &StateChangedError{Session: st.ID}
			}
			st = t.started
		}
		r, err := manifests.Read(st.Root, st.User)
		if err != nil {
			return nil, err
		}
		boundary, _, err := catalog.Resolve(r, "")
		if err != nil {
			return nil, err
		}
		s := st.Surface.Within(boundary)
		s.Session = true
		watch := watchList(r)
		return &Config{Surface: s, Endpoints: r.Endpoints, Watch: watch, stamps: append(stampFiles(watch), trust)}, nil
	}
	r, err := manifests.Read(t.Root, t.User)
	if err != nil {
		return nil, err
	}
	if t.TrustOnce {
		r.TrustOnce()
	}
	s, warns, err := catalog.Resolve(r, t.Agent)
	warns = append(warns, catalog.UnreadAgents(r, t.Agent)...)
	watch := watchList(r)
	cfg := &Config{Surface: s, Endpoints: r.Endpoints, Warnings: append(slices.Clone(r.Warnings), warns...), Watch: watch, stamps: append(stampFiles(watch), trust), notes: startNotes(r)}
	return cfg, err
}

// StateChangedError says a running session's state file no longer says what
// the session started with: its multiplexer serves what it started with or
// nothing.
type StateChangedError struct {
	Session string `json:"session"`
}

func (e *StateChangedError) ExitCode() int { return exit.Config }

func (e *StateChangedError) Error() string {
	return fmt.Sprintf("session %s: its state file changed since it started; the session serves nothing until the file is as it was, or the session is stopped", e.Session)
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
		} else if _, err := os.Stat(filepath.Dir(p)); err == nil {
			out = append(out, p) // a file that may appear
		}
	}
	return out
}
