package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpsh/mcp/internal/safefile"
)

// UserPaths locates a user's own configuration. ConfigDir is what
// os.UserConfigDir returns; it is passed in so tests can point elsewhere.
// An empty field leaves out the files under it.
type UserPaths struct {
	Home, Cwd, ConfigDir string
}

// userSource is one file LoadUser reads.
type userSource struct {
	path    string
	key     string // of pi's own files: "mcpServers"
	ours    bool   // a pi file: problems are errors, not warnings
	trusted bool   // read only when it passes the ownership rule
	// project is true for a file of the working directory (Cwd), which
	// needs project trust; false for the user's own (in Home or ConfigDir).
	project bool
	client  *client // how another program's file is read; nil for pi's own
	section string  // which part of the file, when one file is two sources
}

// LoadUser reads the user's own MCP configuration, the boundary outside any
// recipe: every tool of every server found is authorized, since the user is
// the admin. Sources, lowest precedence first (a later file's entry replaces
// an earlier one's for the same server id, whole):
//
//  1. the user's own files of other programs: Claude Desktop
//     (ConfigDir/Claude/claude_desktop_config.json), Cursor
//     (Home/.cursor/mcp.json), VS Code (ConfigDir/Code/User/mcp.json),
//     Windsurf (Home/.codeium/windsurf/mcp_config.json), Codex
//     (Home/.codex/config.toml), Gemini CLI (Home/.gemini/settings.json),
//     Zed (ConfigDir/zed/settings.json; Home/.config/zed on macOS,
//     ConfigDir/Zed on Windows), OpenCode (ConfigDir/opencode/opencode.json
//     and opencode.jsonc; Home/.config/opencode on macOS and Windows),
//     Claude Code's user servers (Home/.claude.json, mcpServers);
//  2. the working directory's files of other programs, marked project:
//     Cwd/.cursor/mcp.json, Cwd/.vscode/mcp.json, Cwd/.codex/config.toml,
//     Cwd/.gemini/settings.json, Cwd/.zed/settings.json,
//     Cwd/opencode.json and Cwd/opencode.jsonc, Cwd/.mcp.json (Claude
//     Code);
//  3. Claude Code's servers for this directory (Home/.claude.json,
//     projects[Cwd].mcpServers), which Claude Code ranks above .mcp.json;
//  4. Home/.pi/agent/mcp.json;
//  5. Cwd/.pi/mcp.json, when it passes the ownership rule.
//
// Each program's file is read in its own format (see clients.go): JSON
// with comments and trailing commas, TOML for Codex; its own keys for a
// url, a command line, a switched-off entry; its own way of naming
// variables, turned into ${VAR}. Every file is bounded: 1 MiB, and 64 MiB
// for ~/.claude.json, of which only the servers are parsed.
//
// Ownership rule: the project file Cwd/.pi/mcp.json is read only when it is a
// regular file (not a symlink) owned by the current user and not writable
// by group or others, and its .pi directory is likewise a real directory
// (not a symlink) owned by the current user and not writable by group or
// others. Otherwise it is ignored and a warning says why. (On systems
// without Unix ownership and permission bits, Windows, only the file types
// are checked.)
//
// Project trust: the files read from Cwd are project files. Unless Cwd is
// Home, the endpoints whose entry came from one carry Untrusted until Cwd
// has been trusted with them (see Load); Home's and ConfigDir's files are
// the user's own. The trust store is the one under ConfigDir.
//
// Missing files are fine. An invalid entry in an imported file, or an
// imported file that cannot be read or parsed, is skipped with a warning;
// in a pi file it is an error, and all errors come back as Errors. An
// imported entry the program has switched off is left out, and keys other
// programs add to entries are ignored there. Recipe.Sources lists the
// files found and what came of each.
func LoadUser(u UserPaths) (*Recipe, error) {
	r, errs := loadUser(u)
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}

// loadUser reads as LoadUser does, and returns what it could read along
// with every problem.
func loadUser(u UserPaths) (*Recipe, Errors) {
	cwd := u.Cwd
	if cwd != "" {
		abs, err := filepath.Abs(cwd)
		if err != nil {
			return &Recipe{User: true, Endpoints: map[string]Endpoint{}, Agents: map[string]*Agent{}}, asErrors(err, cwd)
		}
		cwd = abs
	}
	l := &userLoad{
		r:       &Recipe{Root: cwd, User: true, Endpoints: map[string]Endpoint{}, Agents: map[string]*Agent{}},
		w:       newWatch(),
		x:       &importCtx{home: u.Home, cwd: cwd, parsed: map[string]parsedFile{}, bytes: map[string][]byte{}},
		tr:      newTrustReads(cwd),
		project: map[string]bool{},
		home:    cwd != "" && u.Home != "" && resolveDir(cwd) == resolveDir(u.Home),
	}
	done := map[string]bool{}
	for _, src := range userSources(u.Home, cwd, u.ConfigDir) {
		if done[src.sourceKey()] {
			continue // Cwd is Home: one file, read once
		}
		done[src.sourceKey()] = true
		l.read(src, displayPath(src.path, cwd, u.Home))
	}
	l.r.Files = l.w.list()
	trustPlace{store: storeIn(u.ConfigDir), home: u.Home}.decide(l.r, l.tr, l.project)
	return l.r, l.errs
}

// userLoad is one LoadUser in progress.
type userLoad struct {
	r       *Recipe
	w       *watch
	x       *importCtx
	tr      *trustReads     // the project files read
	project map[string]bool // canonical ids whose entry came from a project file
	home    bool            // Cwd is Home: its files are the user's own
	errs    Errors
}

// read reads one source into the recipe, and notes what came of it in
// Recipe.Sources.
func (l *userLoad) read(src userSource, display string) {
	r := l.r
	l.w.candidate(src.path)
	found := Source{File: display, Program: src.program(), Section: src.sourceSection(l.x.cwd)}
	skip := func(why string) {
		l.w.file(src.path)
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: ignored: %s", display, why))
		found.Skipped = why
		r.Sources = append(r.Sources, found)
	}
	if src.trusted {
		if why := untrusted(src.path); why != "" {
			if why != "missing" {
				skip(why)
			}
			return
		}
	}
	eps, skipped, err := src.load(display, l.x)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNothing) {
		return
	}
	// A file that fails the ownership rule was not read. One of the
	// working directory's keeps it from being trusted; the user's own
	// file of pi's is an error, as any problem of it.
	if se := refusedBy(err); se != nil && (src.project || !src.ours) {
		if src.project && !l.home {
			l.tr.refuse(src.path, se.Problem)
		}
		skip("it " + se.Problem)
		return
	}
	l.w.file(src.path)
	if data, ok := l.x.bytes[src.path]; ok && src.project {
		l.tr.add(src.path, data)
	}
	if err != nil {
		if src.ours {
			l.errs = append(l.errs, asErrors(err, display)...)
		} else {
			for _, e := range asErrors(err, display) {
				r.Warnings = append(r.Warnings, "skipped file: "+e.Error())
			}
			found.Skipped = skippedWhy(asErrors(err, display))
			r.Sources = append(r.Sources, found)
		}
		return
	}
	for _, e := range skipped {
		r.Warnings = append(r.Warnings, "skipped entry: "+e.Error())
	}
	found.Servers, found.SkippedEntries = len(eps), len(skipped)
	r.Sources = append(r.Sources, found)
	for _, ep := range eps {
		ep.Dir = filepath.Dir(src.path)
		id := CanonicalID(ep.ID)
		r.Endpoints[id] = ep
		l.project[id] = src.project
		delete(r.Editors, id)
		if src.program() != "" && (!src.project || l.home) {
			if r.Editors == nil {
				r.Editors = map[string]string{}
			}
			r.Editors[id] = display
		}
	}
}

func userSources(home, cwd, configDir string) []userSource {
	var out []userSource
	add := func(base string, s userSource) {
		if base != "" {
			s.path = filepath.Join(base, s.path)
			out = append(out, s)
		}
	}
	out = append(out, importSources(home, cwd, configDir)...)
	add(home, userSource{path: filepath.Join(".pi", "agent", "mcp.json"), key: "mcpServers", ours: true})
	add(cwd, userSource{path: filepath.Join(".pi", "mcp.json"), key: "mcpServers", ours: true, trusted: true, project: true})
	return out
}

// untrusted applies the trust rule to the project file at path. It returns
// "" when the file may be read, "missing" when there is nothing to read, and
// otherwise the reason it is ignored.
func untrusted(path string) string {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "missing"
	}
	if err != nil {
		return "cannot inspect it: " + safefile.Describe(err)
	}
	if why := untrustedInfo(fi, path, false); why != "" {
		return "not trusted: the file " + why
	}
	di, err := os.Lstat(dir)
	if err != nil {
		return "cannot inspect its directory: " + safefile.Describe(err)
	}
	if why := untrustedInfo(di, dir, true); why != "" {
		return "not trusted: its directory " + why
	}
	return ""
}

func untrustedInfo(fi fs.FileInfo, path string, wantDir bool) string {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "is a symlink"
	case wantDir && !m.IsDir():
		return "is not a directory"
	case !wantDir && !m.IsRegular():
		return "is not a regular file"
	}
	return ownershipProblem(fi, path)
}

// displayPath names path relative to cwd when inside it, as ~/... when
// inside home, and whole otherwise.
func displayPath(path, cwd, home string) string {
	for _, base := range []struct{ dir, prefix string }{{cwd, ""}, {home, "~/"}} {
		if base.dir == "" {
			continue
		}
		if rel, err := filepath.Rel(base.dir, path); err == nil && filepath.IsLocal(rel) {
			return base.prefix + filepath.ToSlash(rel)
		}
	}
	return path
}
