package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	key     string // "mcpServers" or "servers"
	ours    bool   // a pi file: problems are errors, not warnings
	trusted bool   // read only when it passes the ownership rule
	project bool   // in the working directory: needs project trust
}

// LoadUser reads the user's own MCP configuration, the boundary outside any
// recipe: every tool of every server found is authorized, since the user is
// the admin. Sources, lowest precedence first (a later file's entry replaces
// an earlier one's for the same server id, whole):
//
//  1. imports, files that other programs own: Claude Desktop
//     (ConfigDir/Claude/claude_desktop_config.json), Cursor
//     (Home/.cursor/mcp.json, then Cwd/.cursor/mcp.json), VS Code
//     (Cwd/.vscode/mcp.json, key "servers"), Claude Code (Cwd/.mcp.json);
//  2. Home/.pi/agent/mcp.json;
//  3. Cwd/.pi/mcp.json, when it passes the ownership rule.
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
// imported entry with "disabled": true is left out, and keys other programs
// add to entries are ignored there.
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
		tr:      newTrustReads(cwd),
		project: map[string]bool{},
	}
	done := map[string]bool{}
	for _, src := range userSources(u.Home, cwd, u.ConfigDir) {
		if done[src.path] {
			continue // Cwd is Home: one file, read once
		}
		done[src.path] = true
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
	tr      *trustReads     // the project files read
	project map[string]bool // canonical ids whose entry came from a project file
	errs    Errors
}

// read reads one source into the recipe.
func (l *userLoad) read(src userSource, display string) {
	r := l.r
	l.w.dir(filepath.Dir(src.path))
	if src.trusted {
		if why := untrusted(src.path); why != "" {
			if why != "missing" {
				l.w.file(src.path)
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s: ignored: %s", display, why))
			}
			return
		}
	}
	data, err := readFile(src.path, display)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	l.w.file(src.path)
	var eps []Endpoint
	var skipped Errors
	if err == nil {
		if src.project {
			l.tr.add(src.path, data)
		}
		eps, skipped, err = parseServers(data, display, src.key, !src.ours)
	}
	if err != nil {
		if src.ours {
			l.errs = append(l.errs, asErrors(err, display)...)
		} else {
			for _, e := range asErrors(err, display) {
				r.Warnings = append(r.Warnings, "skipped file: "+e.Error())
			}
		}
		return
	}
	for _, e := range skipped {
		r.Warnings = append(r.Warnings, "skipped entry: "+e.Error())
	}
	for _, ep := range eps {
		ep.Dir = filepath.Dir(src.path)
		id := CanonicalID(ep.ID)
		r.Endpoints[id] = ep
		l.project[id] = src.project
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
	add(configDir, userSource{path: filepath.Join("Claude", "claude_desktop_config.json"), key: "mcpServers"})
	add(home, userSource{path: filepath.Join(".cursor", "mcp.json"), key: "mcpServers"})
	add(cwd, userSource{path: filepath.Join(".cursor", "mcp.json"), key: "mcpServers", project: true})
	add(cwd, userSource{path: filepath.Join(".vscode", "mcp.json"), key: "servers", project: true})
	add(cwd, userSource{path: ".mcp.json", key: "mcpServers", project: true})
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
		return "cannot inspect it: " + describeOpenErr(err)
	}
	if why := untrustedInfo(fi, false); why != "" {
		return "not trusted: the file " + why
	}
	di, err := os.Lstat(dir)
	if err != nil {
		return "cannot inspect its directory: " + describeOpenErr(err)
	}
	if why := untrustedInfo(di, true); why != "" {
		return "not trusted: its directory " + why
	}
	return ""
}

func untrustedInfo(fi fs.FileInfo, wantDir bool) string {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "is a symlink"
	case wantDir && !m.IsDir():
		return "is not a directory"
	case !wantDir && !m.IsRegular():
		return "is not a regular file"
	}
	return ownershipProblem(fi)
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
