//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
)

// sharedDir is a directory where everyone may write (mode is 01777 or
// 0777), holding work, a directory of the user's own with their .mcp.json.
type sharedDir struct {
	*muxEnv
	shared, work, marker string
}

func newSharedDir(t *testing.T, mode os.FileMode) *sharedDir {
	m := newMuxEnv(t)
	base := t.TempDir()
	s := &sharedDir{muxEnv: m, shared: filepath.Join(base, "x"), marker: filepath.Join(base, "planted-server-ran")}
	s.work = filepath.Join(s.shared, "work")
	mkdir(t, s.work)
	if err := os.Chmod(s.shared, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.work, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.work, ".mcp.json"), `{"mcpServers": {"mine": {"command": "fake-server"}}}`)
	return s
}

// plantRecipe makes the shared directory a recipe of p's, whose server
// would leave the marker file if it ever ran.
func (s *sharedDir) plantRecipe(p *localuser.User) {
	p.WriteFile(s.t, filepath.Join(s.shared, "package.json"),
		`{"pi": {"mcp": {"manifests": ["planted.json"], "servers": [{"id": "planted", "tools": {"include": ["*"]}}]}}}`)
	p.WriteFile(s.t, filepath.Join(s.shared, "planted.json"), s.plantedServers())
}

func (s *sharedDir) plantedServers() string {
	return `{"mcpServers": {"planted": {"command": "sh", "args": ["-c", "echo ran > ` + s.marker + `"]}}}`
}

// in runs mcp in dir.
func (s *sharedDir) in(dir string, args ...string) result {
	s.t.Helper()
	cmd := s.command(nil, args...)
	cmd.Dir = dir
	return runProcess(s.t, cmd)
}

func (s *sharedDir) noMarker() {
	s.t.Helper()
	if _, err := os.Stat(s.marker); err == nil {
		s.t.Fatal("the planted server ran")
	}
}

// passedOver is the one warning line about a package.json passed over.
func passedOver(path string, p *localuser.User) string {
	return "mcp: warning: " + path + ": passed over: it is owned by " + p.Owner() + ", not by you or root\n"
}

// A package.json that another user planted in a directory above the
// working directory is not the recipe: the user's own .mcp.json is what
// mcp reads, one warning line names the file passed over, mcp trust
// records only the user's file, and the planted server never runs.
func TestPlantedPackageJSON(t *testing.T) {
	s := newSharedDir(t, 0o777|os.ModeSticky)
	p := localuser.New(t)
	s.plantRecipe(p)
	warning := passedOver(filepath.Join(s.shared, "package.json"), p)

	r := s.in(s.work, "list")
	if r.code != 0 || r.stdout != "mine  untrusted\n" || strings.Count(r.stderr, warning) != 1 || strings.Count(r.stderr, "mcp: warning:") != 1 {
		t.Fatalf("list: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = s.in(s.work, "trust")
	if r.code != 0 || r.stdout != "trusted "+s.work+" (.mcp.json): allows 1 server to start: mine\n" || r.stderr != warning {
		t.Fatalf("trust: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r = s.in(s.work, "call", "mine.echo", "message=hi"); r.code != 0 || r.stdout != "hi\n" || r.stderr != warning {
		t.Fatalf("call: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	store, err := os.ReadFile(filepath.Join(s.home(), ".config", "mcp", "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(store), "planted") || strings.Contains(string(store), `"dir": "`+s.shared+`"`) {
		t.Errorf("the trust store holds the planted files:\n%s", store)
	}

	// The planted directory itself, as DIR or as --recipe, is not trusted.
	p.WriteFile(t, filepath.Join(s.shared, ".mcp.json"), s.plantedServers())
	r = s.in(s.work, "trust", s.shared)
	if want := "mcp: error: cannot trust " + s.shared + ": .mcp.json is owned by " + p.Owner() + ", not by you or root\n"; r.code != exit.Config || r.stdout != "" || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("trust DIR: exit %d\nstdout: %s\nstderr: %s\nwant stderr ending %q", r.code, r.stdout, r.stderr, want)
	}
	r = s.in(s.work, "--recipe", s.shared, "trust")
	if want := "mcp: error: cannot trust " + s.shared + ": package.json is owned by " + p.Owner() + ", not by you or root\n"; r.code != exit.Config || r.stderr != want {
		t.Errorf("--recipe trust: exit %d\nstdout: %s\nstderr: %s\nwant stderr %q", r.code, r.stdout, r.stderr, want)
	}
	// Named as the recipe, its files are not read at all.
	for _, args := range [][]string{{"list"}, {"check"}, {"call", "planted.anything"}, {"--trust", "call", "planted.anything"}} {
		r = s.in(s.work, append([]string{"--recipe", s.shared}, args...)...)
		if want := "mcp: error: package.json: is owned by " + p.Owner() + ", not by you or root"; r.code != exit.Config || !strings.Contains(r.stderr, want) {
			t.Errorf("--recipe %v: exit %d\nstdout: %s\nstderr: %s\nwant stderr holding %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
	s.noMarker()

	// Not JSON, it is passed over all the same: nothing below it breaks.
	p.WriteFile(t, filepath.Join(s.shared, "package.json"), "{ not json")
	if r = s.in(s.work, "call", "mine.echo", "message=still"); r.code != 0 || r.stdout != "still\n" || r.stderr != warning {
		t.Fatalf("call under a planted { not json: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	s.noMarker()
}

// In a directory others can write that is not sticky, anything could have
// been swapped under the user's own files: they are passed over too, and
// mcp trust refuses them, naming the directory.
func TestPlantedInWritableDir(t *testing.T) {
	s := newSharedDir(t, 0o777)
	p := localuser.New(t)
	s.plantRecipe(p)
	ignored := "mcp: warning: .mcp.json: ignored: it is under " + s.shared + ", which is writable by group or others (chmod go-w fixes that)\n"

	r := s.in(s.work, "list")
	if r.code != 0 || strings.Contains(r.stdout, "planted") || strings.Contains(r.stdout, "mine") ||
		strings.Count(r.stderr, passedOver(filepath.Join(s.shared, "package.json"), p)) != 1 || strings.Count(r.stderr, ignored) != 1 {
		t.Fatalf("list: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = s.in(s.work, "trust")
	want := "mcp: error: cannot trust " + s.work + ": .mcp.json is under " + s.shared + ", which is writable by group or others (chmod go-w fixes that)\n"
	if r.code != exit.Config || r.stdout != "" || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("trust: exit %d\nstdout: %s\nstderr: %s\nwant stderr ending %q", r.code, r.stdout, r.stderr, want)
	}
	if r = s.in(s.work, "check"); !strings.Contains(r.stdout, "trust: untrusted, and "+s.work+" cannot be trusted: .mcp.json is under "+s.shared+", which is writable by group or others") {
		t.Errorf("check: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r = s.in(s.work, "--trust", "call", "planted.anything"); r.code == 0 {
		t.Errorf("--trust call of the planted server: exit 0\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	s.noMarker()
}

// A trust store whose directory is another user's trusts nothing: every
// command says so in one warning line, and mcp trust refuses to write it.
func TestTrustStoreDirOfAnotherUser(t *testing.T) {
	m := newMuxEnv(t)
	p := localuser.New(t)
	dir := filepath.Join(m.home(), ".config", "mcp")
	p.Chown(t, dir)
	warning := "mcp: warning: the trust store " + filepath.Join(dir, "trust.json") + " is in " + dir +
		", which is not owned by the current user: nothing is trusted until it is fixed\n"
	r := m.run(nil, "call", "fake.echo", "message=hi")
	if r.code != exit.Config || r.stdout != "" || strings.Count(r.stderr, warning) != 1 || !strings.Contains(r.stderr, "which you have not trusted") {
		t.Errorf("call: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = m.run(nil, "trust")
	if r.code != exit.Config || r.stdout != "" || !strings.HasPrefix(r.stderr, "mcp: error: "+strings.TrimPrefix(warning, "mcp: warning: ")) {
		t.Errorf("trust: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// Another user who can write the trust store's directory can put back an
// old store of the user's own, one that still trusts what the user has
// since forgotten. A running multiplexer notices the swap at its next
// request, and the store, in a directory others can write, trusts
// nothing.
func TestTrustStoreSwappedByAnotherUser(t *testing.T) {
	m := newMuxEnv(t)
	p := localuser.New(t)
	m.must("call", "fake.echo", "message=hi")
	dir := filepath.Join(m.home(), ".config", "mcp")
	copyFile(t, filepath.Join(dir, "trust.json"), filepath.Join(dir, "trust.json.old"), 0o600)
	m.must("trust", "--forget")
	m.expect(exit.Config, "which you have not trusted", "call", "fake.echo", "message=forgotten")

	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	letThrough(t, filepath.Dir(dir))
	if r := runAs(t, p, dir, "mv", "trust.json.old", "trust.json"); r.code != 0 {
		t.Fatalf("the other user's mv: exit %d, %s", r.code, r.stderr)
	}
	r := m.run(nil, "call", "fake.echo", "message=swapped")
	if r.code != exit.Config || r.stdout != "" ||
		!strings.Contains(r.stderr, "mcp: warning: the trust store "+filepath.Join(dir, "trust.json")+" is in "+dir+", which is writable by group or others") {
		t.Errorf("call after the swap: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// A running multiplexer follows the files trust covers: a script the
// manifest runs, replaced, is refused once the multiplexer has reloaded,
// naming it, and its server is stopped.
func TestMuxFollowsTrustedScript(t *testing.T) {
	m := newMuxEnv(t)
	script := filepath.Join(m.root, "fake.sh")
	writeFile(t, script, "#!/bin/sh\nexec fake-server\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(m.root, "mcp.json"), strings.Replace(muxManifest, `"fake": {"command": "fake-server",`, `"fake": {"command": "./fake.sh",`, 1))
	if out := m.must("trust"); !strings.Contains(out, "(fake.sh, mcp.json, package.json)") {
		t.Fatalf("trust: %s", out)
	}
	m.must("call", "fake.echo", "message=hi")
	server := m.serverPID(m.socket(""), "fake")

	writeFile(t, script, "#!/bin/sh\necho replaced >> "+m.events+"\nexec fake-server\n")
	if !eventually(10*time.Second, func() bool {
		r := m.run(nil, "call", "fake.echo", "message=x")
		return r.code == exit.Config && strings.Contains(r.stderr, "which changed since you trusted it (fake.sh)")
	}) {
		t.Fatal("a replaced script was not refused")
	}
	if !eventually(10*time.Second, func() bool { return gone(server) }) {
		t.Error("the server of a changed script is still running")
	}
	if slices.Contains(m.eventLines("replaced"), "") {
		t.Error("the replaced script ran")
	}
}

// runAs runs a system program as u in dir.
func runAs(t *testing.T, u *localuser.User, dir string, argv ...string) result {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = u.SysProcAttr()
	return runProcess(t, cmd)
}

// letThrough lets everyone pass through dir and the directories above it
// (o+x), as a home directory usually allows.
func letThrough(t *testing.T, dir string) {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
				t.Fatal(err)
			}
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

// home is the HOME of the test's mcp.
func (m *muxEnv) home() string {
	for _, kv := range m.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	m.t.Fatal("no HOME")
	return ""
}
