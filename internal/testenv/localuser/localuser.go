//go:build unix

// Package localuser makes a real second local user for a test: someone
// else who owns files, plants them where others may write, or runs
// programs, as another user on the same machine would. Making one needs
// root (CI runs as root) and useradd.
//
// It is a package of its own, not part of testenv, because testenv
// imports manifests, whose own tests need a second user too.
package localuser

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// User is a real local user, made for one test and deleted after it.
type User struct {
	Name     string
	UID, GID int
}

// New adds a system user, without a home or a login shell, and deletes it
// when the test ends.
func New(t testing.TB) *User {
	t.Helper()
	if os.Getuid() != 0 {
		t.Fatal("this test acts as a second local user, which needs root to create (CI runs as root)")
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := "mcpt" + hex.EncodeToString(b[:])
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v\n%s", name, err, out)
		}
	})
	lu, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	u := &User{Name: name}
	u.UID, _ = strconv.Atoi(lu.Uid)
	u.GID, _ = strconv.Atoi(lu.Gid)
	return u
}

// Owner is how mcp names u as the owner of a file.
func (u *User) Owner() string { return u.Name + " (uid " + strconv.Itoa(u.UID) + ")" }

// SysProcAttr makes a child process run as u.
func (u *User) SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
}

// Chown gives path (itself, not where a symlink leads) to u.
func (u *User) Chown(t testing.TB, path string) {
	t.Helper()
	if err := os.Lchown(path, u.UID, u.GID); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes a file of u's (mode 0644), as u would have written it.
func (u *User) WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	u.Chown(t, path)
}

// Sh runs a shell script as u in dir, with only PATH=/usr/bin:/bin in its
// environment, and fails the test with the script's output if it fails.
func (u *User) Sh(t testing.TB, dir, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-ec", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = u.SysProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as %s: %v\n%s", u.Name, err, out)
	}
}

// Shared makes a directory of the given mode (0o777|os.ModeSticky, as
// /tmp; or 0o777, a team checkout of umask 000) under one anyone may
// reach, and removes it when the test ends.
func Shared(t testing.TB, mode os.FileMode) string {
	t.Helper()
	base, err := os.MkdirTemp("", "mcp-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d, m := range map[string]os.FileMode{base: 0o755, dir: mode} {
		if err := os.Chmod(d, m); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
