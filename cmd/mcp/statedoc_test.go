package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/output"
	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/state"
	"github.com/mcpsh/mcp/mux"
)

// How each system spells the base directories (os.UserConfigDir and
// os.UserCacheDir), in the page's table and in its clean-up commands.
var stateRoots = []struct {
	system, config, cache, rmConfig, rmCache, sep string
}{
	{"Linux", "~/.config/", "~/.cache/", "${XDG_CONFIG_HOME:-$HOME/.config}/", "${XDG_CACHE_HOME:-$HOME/.cache}/", "/"},
	{"macOS", "~/Library/Application Support/", "~/Library/Caches/", "$HOME/Library/Application Support/", "$HOME/Library/Caches/", "/"},
	{"Windows", `%AppData%\`, `%LocalAppData%\`, `$env:APPDATA\`, `$env:LOCALAPPDATA\`, `\`},
}

// docs/state.md names every directory and file mcp writes, on each
// system, and its clean-up commands remove each of them.
func TestDocs_stateNamesEveryPlace(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "state.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	clean := cleanUpBlocks(t, page)
	configDir, _ := os.UserConfigDir()
	cacheDir, _ := os.UserCacheDir()
	for _, p := range state.Places() {
		if p.What == "runtime directory" {
			continue // runtimeDirs
		}
		path := p.Path
		if p.Err != "" {
			t.Fatalf("%s: %v", p.What, p.Err)
		}
		base := cacheDir
		if p.Config {
			base = configDir
		}
		rel, err := filepath.Rel(base, path)
		if err != nil || strings.HasPrefix(rel, "..") || !strings.HasPrefix(rel, "mcp"+string(filepath.Separator)) {
			t.Fatalf("%s is %s, not in mcp/ under %s", p.What, path, base)
		}
		for _, r := range stateRoots {
			root, rm := r.cache, r.rmCache
			if p.Config {
				root, rm = r.config, r.rmConfig
			}
			want := root + strings.ReplaceAll(filepath.ToSlash(rel), "/", r.sep)
			if !strings.Contains(page, "`"+want+"`") {
				t.Errorf("docs/state.md does not name the %s on %s: `%s`", p.What, r.system, want)
			}
			if !strings.Contains(clean[r.system], rm+"mcp") {
				t.Errorf("docs/state.md's clean-up on %s does not remove %smcp, where the %s is", r.system, rm, p.What)
			}
		}
	}
	runtimeDirs(t, page, clean)
}

// runtimeDirs checks the page against the runtime directory the code
// makes, with XDG_RUNTIME_DIR and without (on Windows, where there is no
// user id, its name is mcp-RANDOM).
func runtimeDirs(t *testing.T, page string, clean map[string]string) {
	if runtime.GOOS == "windows" {
		return
	}
	xdg := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(xdg, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	dir, err := privdir.Runtime()
	if err != nil {
		t.Fatal(err)
	}
	if rel, _ := filepath.Rel(xdg, dir); !strings.Contains(page, "`$XDG_RUNTIME_DIR/"+rel+"`") || !strings.Contains(clean["Linux"], "$XDG_RUNTIME_DIR/"+rel) {
		t.Errorf("docs/state.md does not name (and remove) the runtime directory $XDG_RUNTIME_DIR/%s", rel)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if dir, err = privdir.Runtime(); err != nil {
		t.Fatal(err)
	}
	prefix := "mcp-" + strconv.Itoa(os.Getuid()) + "-"
	if filepath.Dir(dir) != tmp || !strings.HasPrefix(filepath.Base(dir), prefix) {
		t.Fatalf("the runtime directory without XDG_RUNTIME_DIR is %s, not %s in %s", dir, prefix+"RANDOM", tmp)
	}
	for _, want := range []string{"`$TMPDIR/mcp-UID-RANDOM`", "`/tmp/mcp-UID-RANDOM`", "`" + privdir.ShortRecord + "`"} {
		if !strings.Contains(page, want) {
			t.Errorf("docs/state.md does not name %s", want)
		}
	}
	for _, system := range []string{"Linux", "macOS"} {
		for _, want := range []string{"/mcp-$(id -u)-*", "/tmp/mcp-$(id -u)-*"} {
			if !strings.Contains(clean[system], want) {
				t.Errorf("docs/state.md's clean-up on %s does not remove %s", system, want)
			}
		}
	}
	if out, err := output.Dir(); err != nil || out != dir {
		t.Errorf("saved outputs go to %s (%v), not the runtime directory %s", out, err, dir)
	}
	if !mux.Supported {
		return
	}
	sock, err := mux.SocketPath("KEY")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(sock) != dir {
		t.Errorf("a socket is made in %s, not in the runtime directory %s", filepath.Dir(sock), dir)
	}
	for _, want := range []string{filepath.Base(sock), filepath.Base(sock) + ".lock", filepath.Base(sock) + ".log"} {
		if !strings.Contains(page, "`"+want+"`") {
			t.Errorf("docs/state.md does not name a multiplexer's `%s`", want)
		}
	}
}

// cleanUpBlocks is the code block after "On SYSTEM" in the page's
// "Removing all of it", by system, with shell quotes taken out.
func cleanUpBlocks(t *testing.T, page string) map[string]string {
	_, section, ok := strings.Cut(page, "\n## Removing all of it\n")
	if !ok {
		t.Fatal("docs/state.md has no section ## Removing all of it")
	}
	blocks := map[string]string{}
	for _, r := range stateRoots {
		_, rest, ok := strings.Cut(section, "\nOn "+r.system)
		if !ok {
			t.Fatalf("docs/state.md says nothing of removing it on %s", r.system)
		}
		_, rest, _ = strings.Cut(rest, "\n```")
		block, _, _ := strings.Cut(rest, "\n```")
		blocks[r.system] = strings.ReplaceAll(block, `"`, "")
	}
	return blocks
}
