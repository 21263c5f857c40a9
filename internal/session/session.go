// Package session keeps the state of running sessions: which recipe and
// agent a session was started for, and the surface fixed at its start.
//
// State files live in a 0700 directory under the user's cache directory and
// are written 0600, atomically. They hold no secrets: endpoints and
// credentials are read from the recipe's files when a connection is made.
package session

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/safefile"
)

// EnvVar marks a process as being inside a session. Its value names the
// session, the user who started it and its multiplexer, ID:UID@SOCKET
// (Env), which is all a process in the session needs: it never reads the
// state of the user who started it, and talks only to a socket that user
// listens on.
const EnvVar = "MCP_SESSION"

// State is what a session was started with.
type State struct {
	ID      string           `json:"id"`
	Root    string           `json:"root"`            // recipe root, or the working directory for a user config
	User    bool             `json:"user,omitempty"`  // the boundary is the user's own config
	Agent   string           `json:"agent,omitempty"` // "" for the package boundary
	Surface *catalog.Surface `json:"surface"`
	Started time.Time        `json:"started"`
	// Socket is where the session's multiplexer listens ("" where no
	// multiplexer runs).
	Socket string `json:"socket"`
	// Guest is the other local user whose agent may use the session, if any.
	Guest *Guest `json:"guest,omitempty"`
	// Launch is the digest of the secret the session's multiplexer is
	// started with (NewLaunch): only a multiplexer that session start
	// started, which alone was given the secret, serves the session. That
	// multiplexer clears it once it holds the session's socket, so that
	// the secret never starts another.
	Launch string `json:"launch,omitempty"`
}

// NewLaunch returns a fresh launch secret and the digest a state keeps of
// it.
func NewLaunch() (secret, digest string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	secret = hex.EncodeToString(b[:])
	return secret, launchDigest(secret)
}

// Launched says whether secret is the one the session's multiplexer was
// started with.
func (st *State) Launched(secret string) bool {
	return st.Launch != "" && secret != "" &&
		subtle.ConstantTimeCompare([]byte(launchDigest(secret)), []byte(st.Launch)) == 1
}

func launchDigest(secret string) string {
	sum := sha256.Sum256([]byte("mcp session launch\x00" + secret))
	return hex.EncodeToString(sum[:])
}

// Same says whether other names what st does: the same recipe, agent,
// surface, socket and guest. A running session compares the state it
// started with against the state on disk, and refuses one that changed.
func (st *State) Same(other *State) bool {
	a, errA := json.Marshal(st.fixed())
	b, errB := json.Marshal(other.fixed())
	return errA == nil && errB == nil && string(a) == string(b)
}

func (st *State) fixed() any {
	return struct {
		ID, Root, Agent, Socket, Launch string
		User                            bool
		Surface                         *catalog.Surface
		Guest                           *Guest
	}{st.ID, st.Root, st.Agent, st.Socket, st.Launch, st.User, st.Surface, st.Guest}
}

// Guest is a local user other than the one who started a session, allowed
// to use it: the session's socket accepts that user and the host, nobody
// else.
type Guest struct {
	Name string `json:"name"`
	UID  int    `json:"uid"`
}

// Env is the value of MCP_SESSION for the session: ID:UID@SOCKET, UID
// being the user who started it, this process's (only that user reads a
// session's state).
func (st *State) Env() string { return FormatEnv(st.ID, os.Getuid(), st.Socket) }

// FormatEnv is the value of MCP_SESSION for session id, started by the
// user host, whose multiplexer listens on socket.
func FormatEnv(id string, host int, socket string) string {
	return id + ":" + strconv.Itoa(host) + "@" + socket
}

// ParseEnv reads a value of MCP_SESSION: the session's id, the uid of the
// user who started it (whose multiplexer alone may listen on the socket)
// and the socket of its multiplexer. The id is hex and the uid decimal
// digits, so the first "@" ends them both, whatever the path holds.
// Anything else is a *BadEnvError.
func ParseEnv(v string) (id string, host int, socket string, err error) {
	head, socket, ok := strings.Cut(v, "@")
	id, uid, okUID := strings.Cut(head, ":")
	host, okHost := parseUID(uid)
	if !ok || !okUID || !okHost || !ValidID(id) || !socketPath(socket) {
		return "", 0, "", &BadEnvError{Value: v}
	}
	return id, host, socket, nil
}

// parseUID reads a uid as strconv.Itoa prints one: decimal digits without
// a sign or leading zeros, short of (uid_t)-1, which names nobody, and
// within an int. On a system without uids (Windows), where os.Getuid is
// -1 for every user and the listener is known by its token's user
// instead, the host is -1 and nothing else.
func parseUID(s string) (int, bool) {
	if os.Getuid() == -1 {
		return -1, s == "-1"
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 1<<32-1 || int(n) < 0 || strconv.FormatUint(n, 10) != s {
		return 0, false
	}
	return int(n), true
}

// socketPath says whether p may be a session's socket: a clean absolute
// path, or "" where no multiplexer runs.
func socketPath(p string) bool {
	return p == "" || filepath.IsAbs(p) && filepath.Clean(p) == p && !strings.ContainsRune(p, 0)
}

// BadEnvError says MCP_SESSION holds something session start never prints.
type BadEnvError struct{ Value string }

func (e *BadEnvError) ExitCode() int { return exit.Usage }

func (e *BadEnvError) Error() string {
	return fmt.Sprintf("MCP_SESSION=%.40q does not name a session: it must be the ID:UID@SOCKET that session start printed", e.Value)
}

// NotFoundError says there is no state for a session id.
type NotFoundError struct{ ID string }

func (e *NotFoundError) ExitCode() int { return exit.Usage }

// Error names a session id as mcp prints ids; anything else was never
// one, and is quoted as given, cut short.
func (e *NotFoundError) Error() string {
	if !ValidID(e.ID) {
		return fmt.Sprintf("%.64q is not a session id", e.ID)
	}
	return fmt.Sprintf("session %s is not running", e.ID)
}

var idPattern = regexp.MustCompile(`^[a-f0-9]{16,64}$`)

// ValidID reports whether id has the shape NewID gives.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// NewID returns a fresh random session id.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Dir returns the directory that holds session state, creating it 0700.
func Dir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w", err)
	}
	dir := filepath.Join(base, "mcp", "sessions")
	if err := privdir.Make(dir); err != nil {
		return "", err
	}
	return dir, nil
}

func path(id string) (string, error) {
	if !ValidID(id) {
		return "", &NotFoundError{ID: id}
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id+".json"), nil
}

// Save writes the state atomically, 0600.
func Save(st *State) error {
	p, err := path(st.ID)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(p, data)
}

// maxStateSize bounds a session's state file.
const maxStateSize = 16 << 20

// Load reads a session's state.
func Load(id string) (*State, error) {
	p, err := path(id)
	if err != nil {
		return nil, err
	}
	data, err := readState(p)
	var unsafe *safefile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &NotFoundError{ID: id}
	case errors.As(err, &unsafe) && (unsafe.Kind == safefile.Unsafe || unsafe.Kind == safefile.NotRegular):
		return nil, fmt.Errorf("session %s: the state file is not private to this user: %s", id, unsafe)
	case err != nil:
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil || st.Surface == nil || st.ID != id || !socketPath(st.Socket) {
		return nil, fmt.Errorf("session %s: state file is damaged", id)
	}
	return &st, nil
}

// readState reads the state file at p when it is this user's alone, by
// its owner and mode (safefile; on Windows its owner and access list).
func readState(p string) ([]byte, error) {
	return safefile.Options{NoSymlink: true, Own: true, Private: true, Limit: maxStateSize}.Read(p)
}

// Remove deletes a session's state.
func Remove(id string) error {
	p, err := path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(p); errors.Is(err, fs.ErrNotExist) {
		return &NotFoundError{ID: id}
	} else if err != nil {
		return err
	}
	return nil
}

// List returns every session's state, oldest first. Damaged files are skipped.
func List() ([]*State, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []*State
	for _, m := range matches {
		id := filepath.Base(m)
		id = id[:len(id)-len(".json")]
		if st, err := Load(id); err == nil {
			out = append(out, st)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}
