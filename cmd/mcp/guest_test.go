//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
	"github.com/mcpsh/mcp/mux"
)

// localUser is a real second user with a home of its own, made for one
// test and deleted after it.
type localUser struct {
	*localuser.User
	home string
}

// newLocalUser adds a system user with a home of its own under dir.
func newLocalUser(t *testing.T, dir string) *localUser {
	t.Helper()
	u := localuser.New(t)
	lu := &localUser{User: u, home: filepath.Join(dir, u.Name)}
	mkdir(t, filepath.Join(lu.home, "tmp"))
	for _, p := range []string{lu.home, filepath.Join(lu.home, "tmp")} {
		u.Chown(t, p)
	}
	return lu
}

// guestEnv is a shared place for the binary and the users' homes: every
// user may reach it, while the host's recipe, state and caches stay in the
// test's private directory.
type guestEnv struct {
	*muxEnv
	bin    string // the mcp binary, which every user may run
	shared string // TMPDIR of the host's session start: where the session's socket directory goes
}

func newGuestEnv(t *testing.T) *guestEnv {
	if os.Getuid() != 0 {
		t.Fatal("this test runs an agent as a second local user, which needs root to create (CI runs as root)")
	}
	m := newMuxEnv(t)
	dir, err := os.MkdirTemp("", "mcp-guest-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	g := &guestEnv{muxEnv: m, bin: filepath.Join(dir, "bin", "mcp"), shared: filepath.Join(dir, "tmp")}
	for _, d := range []string{dir, filepath.Dir(g.bin), g.shared} {
		mkdir(t, d)
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, exe, g.bin, 0o755)
	return g
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// as runs argv[0] (mcp, guest-probe, or a system program) as u with only
// the environment given, plus PATH and u's own HOME and TMPDIR, from u's
// home directory.
func (g *guestEnv) as(u *localUser, env []string, argv ...string) result {
	g.t.Helper()
	var cmd *exec.Cmd
	switch {
	case argv[0] == "mcp", strings.HasPrefix(argv[0], "guest-probe"):
		cmd = exec.Command(g.bin, argv[1:]...)
		cmd.Args[0] = argv[0]
	default:
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Dir = u.home
	cmd.Env = append([]string{"PATH=" + filepath.Dir(g.bin) + ":/usr/bin:/bin", "HOME=" + u.home, "TMPDIR=" + filepath.Join(u.home, "tmp")}, env...)
	cmd.SysProcAttr = u.SysProcAttr()
	return runProcess(g.t, cmd)
}

// A session for another local user: with only MCP_SESSION, an agent
// running as that user can search, list, call and run its surface and
// nothing else. It reads no file of the host's (the recipe, the session
// state, the catalog cache, the multiplexer's log), cannot reach the
// host's own multiplexer, cannot stop or inspect the session's, and a
// third user cannot use the session at all.
func TestSessionForAnotherUser(t *testing.T) {
	g := newGuestEnv(t)
	guest, stranger := newLocalUser(t, filepath.Dir(g.shared)), newLocalUser(t, filepath.Dir(g.shared))
	g.must("call", "fake.echo", "message=warm") // the host's own multiplexer and catalog cache

	r := g.run([]string{"TMPDIR=" + g.shared}, "session", "start", "--agent", "narrow", "--user", guest.Name)
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start --user: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "user "+guest.Name+" needs only MCP_SESSION="+env) || !strings.Contains(r.stderr, "in a container running as uid "+strconv.Itoa(guest.UID)) {
		t.Errorf("session start does not say what the other user needs:\n%s", r.stderr)
	}
	id, socket := sessionParts(t, env)
	in := []string{"MCP_SESSION=" + env}

	if out := g.must("daemon", "status"); !strings.Contains(out, "session "+id) {
		t.Errorf("daemon status does not show the session for another user:\n%s", out)
	}
	g.guestCanUseItsSurface(guest, in)
	g.guestReachesNothingElse(guest, in, id, socket)

	if r := g.as(stranger, in, "mcp", "call", "fake.echo", "message=hi"); r.code == 0 || strings.Contains(r.stdout, "hi") {
		t.Errorf("a third user used the session: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := g.as(stranger, nil, "guest-probe", socket, `{"v":3,"op":"status"}`); strings.Contains(r.stdout, "label") {
		t.Errorf("a third user read the session's status: %q", r.stdout)
	}

	if r := g.run(nil, "session", "stop", env); r.code != 0 {
		t.Fatalf("session stop: exit %d, %q", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Dir(socket)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the session's socket directory is left after session stop: %v", err)
	}
	if r := g.as(guest, in, "mcp", "list"); r.code != exit.Upstream {
		t.Errorf("the guest after session stop: exit %d, stderr %q", r.code, r.stderr)
	}

	// A session for another user that fails to start leaves no directory.
	writeFile(t, filepath.Join(g.root, "package.json"), strings.Replace(muxPackage, `"servers": [`,
		`"servers": [{"id": "ledger", "required": true, "tools": {"include": ["*"]}}, `, 1))
	g.trust()
	if r := g.run([]string{"TMPDIR=" + g.shared}, "session", "start", "--user", guest.Name); r.code == 0 || !strings.Contains(r.stderr, "required server ledger") {
		t.Fatalf("session start with an unbindable required server: exit %d, %q", r.code, r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(g.shared, "mcp-session-*")); len(left) > 0 {
		t.Errorf("a session that did not start left %v", left)
	}
}

// guestCanUseItsSurface runs the four verbs as the guest.
func (g *guestEnv) guestCanUseItsSurface(guest *localUser, in []string) {
	t := g.t
	t.Helper()
	checks := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"list"}, 0, "fake  1 tool"},
		{[]string{"list", "fake"}, 0, "fake.echo("},
		{[]string{"search", "echo"}, 0, "fake.echo("},
		{[]string{"call", "fake.echo", "message=hi"}, 0, "hi\n"},
		{[]string{"run", "-e", `await fake.echo({message: "from run"})`}, 0, "from run"},
		{[]string{"call", "fake.getenv", "name=HOME"}, exit.NotAvailable, "fake.getenv is not available"},
		{[]string{"session", "stop", "x"}, exit.Usage, "administrative commands"},
		{[]string{"--recipe", g.root, "list"}, exit.Usage, "config overrides"},
	}
	for _, c := range checks {
		r := g.as(guest, in, append([]string{"mcp"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stdout+r.stderr, c.want) {
			t.Errorf("as the guest, mcp %v: exit %d (want %d), stdout %q, stderr %q (want %q)", c.args, r.code, c.code, r.stdout, r.stderr, c.want)
		}
	}
}

// guestReachesNothingElse checks what the guest cannot read or reach.
func (g *guestEnv) guestReachesNothingElse(guest *localUser, in []string, id, socket string) {
	t := g.t
	t.Helper()
	cache := filepath.Join(g.envValue("XDG_CACHE_HOME"), "mcp")
	files := []string{
		filepath.Join(g.root, "package.json"), filepath.Join(g.root, "mcp.json"),
		filepath.Join(cache, "sessions", id+".json"), socket + ".log", socket + ".lock",
	}
	cached, _ := filepath.Glob(filepath.Join(cache, "*", "*"))
	if len(cached) == 0 {
		t.Fatalf("no catalog cache under %s to try", cache)
	}
	for _, f := range append(files, cached[0]) {
		if r := g.as(guest, nil, "cat", f); r.code == 0 {
			t.Errorf("the guest read the host's %s", f)
		}
	}
	if r := g.as(guest, nil, "ls", filepath.Dir(socket)); r.code == 0 {
		t.Errorf("the guest listed the session's socket directory: %q", r.stdout)
	}
	// Outside the session, the host's recipe is out of reach.
	if r := g.as(guest, nil, "mcp", "--recipe", g.root, "list"); r.code == 0 || strings.Contains(r.stdout, "fake") {
		t.Errorf("the guest read the host's recipe outside the session: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// MCP_SESSION pointed at the host's own multiplexer, which serves the
	// whole package.
	host := []string{"MCP_SESSION=" + sessionEnv(id, g.socket(""))}
	if r := g.as(guest, host, "mcp", "call", "fake.getenv", "name=HOME"); r.code == 0 {
		t.Errorf("the guest used the host's multiplexer: stdout %q", r.stdout)
	}
	// Raw requests of the guest's own: the session's multiplexer answers
	// the four verbs only, for its own session only.
	for _, req := range []string{`{"v":3,"op":"stop"}`, `{"v":3,"op":"status"}`, `{"v":3,"op":"bind","session":"` + id + `","server":"fake"}`} {
		r := g.as(guest, nil, "guest-probe", socket, req)
		if !strings.Contains(r.stdout, "is for the user who started the session") {
			t.Errorf("the guest's raw %s: stdout %q, stderr %q", req, r.stdout, r.stderr)
		}
	}
	r := g.as(guest, nil, "guest-probe", socket, `{"v":3,"op":"tools","server":"fake"}`)
	if !strings.Contains(r.stdout, "this multiplexer serves a session") || strings.Contains(r.stdout, "getenv") {
		t.Errorf("the guest's raw request without the session: %q", r.stdout)
	}
	if !mux.Running(socket) {
		t.Fatal("the session's multiplexer stopped after the guest's requests")
	}
}
