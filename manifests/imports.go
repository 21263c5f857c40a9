package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// Source is one file the user's configuration was read from, or one part
// of it when the file holds servers in two places: what LoadUser found
// there, for `mcp list --sources`. Files that do not exist are not listed.
type Source struct {
	File    string `json:"file"`              // as positions name it
	Program string `json:"program,omitempty"` // whose file it is; "" for pi's own
	// Section is where in the file the servers were read, when the file
	// has more than one place for them (Claude Code's projects); "" otherwise.
	Section string `json:"section,omitempty"`
	// Servers is how many entries were taken (later files may replace some).
	Servers int `json:"servers"`
	// SkippedEntries is how many entries were skipped with a warning.
	SkippedEntries int `json:"skippedEntries,omitempty"`
	// Skipped says why the whole file was left out; "" when it was read.
	Skipped string `json:"skipped,omitempty"`
}

// importCtx is what reading the user's configuration needs beyond a file:
// the directories some clients' values refer to, and the files already
// parsed (one file can be two sources).
type importCtx struct {
	home, cwd string
	parsed    map[string]parsedFile
	// bytes are the files read, as read: what was parsed is what a
	// project file's trust digest covers.
	bytes map[string][]byte
}

type parsedFile struct {
	top *node
	err error
}

// errNothing is a source with nothing to report: its part of the file is
// not there, or the file's problem was reported for another part.
var errNothing = errors.New("nothing to read")

// client is how one program writes its MCP servers.
type client struct {
	name string // the program, for Source
	toml bool   // the file is TOML; otherwise JSON with comments and trailing commas
	// limit bounds the file's size; the zero value is the usual 1 MiB.
	limit sizeLimit
	// keep limits what is parsed of a large file (see parseJSONOnly); the
	// file is then strict JSON.
	keep func(x *importCtx) func(path []string) keepMode
	// open finds the map of servers in the file's top-level value, the
	// name of that map in messages, and how to shape its entries (nil:
	// they have the shape of our own files). A nil map is no servers.
	open func(top *node, file string, x *importCtx) (m *node, field string, shape shapeFunc, err error)
}

// underKey opens the servers under one top-level key, each entry shaped
// by shape (nil for entries written as in our own files).
func underKey(key string, shape func(x *importCtx) shapeFunc) func(*node, string, *importCtx) (*node, string, shapeFunc, error) {
	return func(top *node, file string, x *importCtx) (*node, string, shapeFunc, error) {
		m, err := serversAt(top, file, key)
		if m == nil || err != nil || shape == nil {
			return m, key, nil, err
		}
		return m, key, shape(x), nil
	}
}

// load reads and parses the source's file. A missing file gives an error
// that matches fs.ErrNotExist, a source with nothing else to report
// errNothing. Pi's own files are strict; imported files are lenient (see
// parseServers).
func (s userSource) load(display string, x *importCtx) (eps []Endpoint, skipped Errors, err error) {
	if s.client == nil {
		data, err := readFile(s.path, display)
		if err != nil {
			return nil, nil, err
		}
		x.bytes[s.path] = data
		return parseServers(data, display, s.key, !s.ours)
	}
	top, err := s.parse(display, x)
	if err != nil {
		return nil, nil, err
	}
	m, field, shape, err := s.client.open(top, display, x)
	switch {
	case err != nil:
		return nil, nil, err
	case m == nil && field == "":
		return nil, nil, errNothing
	case m == nil:
		return nil, nil, nil
	}
	if e := duplicateOutside(top, m, display); e != nil {
		return nil, nil, e
	}
	return serverMap(m, display, field, true, shape)
}

// parse reads the source's file into a tree, once for each file.
func (s userSource) parse(display string, x *importCtx) (*node, error) {
	if p, ok := x.parsed[s.path]; ok {
		if p.err != nil {
			return nil, errNothing
		}
		return p.top, nil
	}
	limit := s.client.limit
	if limit.bytes == 0 {
		limit = fileLimit
	}
	data, err := readFileLimit(s.path, display, limit)
	if err == nil {
		x.bytes[s.path] = data
	}
	var top *node
	switch {
	case err != nil:
	case s.client.toml:
		top, err = parseTOML(data, display)
	case s.client.keep != nil:
		top, err = parseJSONOnly(data, display, s.client.keep(x))
	default:
		top, err = parseJSONC(data, display)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		x.parsed[s.path] = parsedFile{top, err}
	}
	return top, err
}

// parseJSONC parses JSON that may hold comments and trailing commas, as
// editors write their settings: they become spaces (hujson), so positions
// stay those of the file.
func parseJSONC(data []byte, file string) (*node, error) {
	if off := tooDeep(data); off >= 0 {
		p := newJSONParser(data, file)
		return nil, p.errAt(off, fmt.Sprintf("values are nested more than %d deep", maxDepth))
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, jsoncErr(err, data, file)
	}
	return parseJSON(std, file)
}

// tooDeep returns the offset of the first bracket nested more than
// maxDepth deep in JSON with comments, or -1. hujson recurses once per
// level, and a file deep enough overflows the stack, which is fatal rather
// than an error; parseJSON would refuse the depth anyway. Only strings and
// comments are told apart, so that brackets in them do not count.
func tooDeep(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return -1 // hujson reports the open comment
			}
			i += 2 + end + 1
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return i
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return -1
}

var hujsonErrRE = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

// jsoncErr turns hujson's error into ours: the column in characters, and
// no literal of the file repeated (it could be a secret).
func jsoncErr(err error, data []byte, file string) *Error {
	e := &Error{Pos: Pos{File: file}, Msg: "invalid JSON"}
	m := hujsonErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return e
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	start := 0
	for i := 1; i < line && start < len(data); i++ {
		start += bytes.IndexByte(data[start:], '\n') + 1
	}
	e.Pos.Line, e.Pos.Col = line, 1+utf8.RuneCount(data[start:min(len(data), start+col-1)])
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Msg = "invalid JSON: unexpected end of file"
	case strings.HasPrefix(m[3], "invalid character "):
		e.Msg = "invalid JSON: " + m[3]
	default:
		e.Msg = "invalid JSON: not a JSON value"
	}
	return e
}

// importSources are the files of other programs LoadUser reads, lowest
// precedence first: the user's own files (in home and the config
// directory), then the working directory's, whose sources are marked
// project. Claude Code's servers for this project in ~/.claude.json come
// after .mcp.json, as Claude Code ranks them.
func importSources(home, cwd, configDir string) []userSource {
	var out []userSource
	add := func(base string, project bool, rel string, c *client) {
		if base != "" {
			out = append(out, userSource{path: filepath.Join(base, filepath.FromSlash(rel)), project: project, client: c})
		}
	}
	user := func(base, rel string, c *client) { add(base, false, rel, c) }
	proj := func(rel string, c *client) { add(cwd, true, rel, c) }

	user(claudeDesktopDir(runtime.GOOS, configDir, os.Getenv("LOCALAPPDATA")), "claude_desktop_config.json", claudeDesktop)
	user(home, ".cursor/mcp.json", cursor)
	user(configDir, "Code/User/mcp.json", vscode)
	user(home, ".codeium/windsurf/mcp_config.json", windsurf)
	user(home, ".codex/config.toml", codex)
	user(home, ".gemini/settings.json", gemini)
	user(zedDir(home, configDir), "settings.json", zed)
	for _, name := range []string{"opencode.json", "opencode.jsonc"} {
		user(xdgConfigDir(runtime.GOOS, home, configDir, os.Getenv("XDG_CONFIG_HOME")), "opencode/"+name, opencode)
	}
	user(home, ".claude.json", claudeUser)

	proj(".cursor/mcp.json", cursor)
	proj(".vscode/mcp.json", vscode)
	proj(".codex/config.toml", codex)
	proj(".gemini/settings.json", gemini)
	proj(".zed/settings.json", zed)
	proj("opencode.json", opencode)
	proj("opencode.jsonc", opencode)
	proj(".mcp.json", claudeCode)
	if home != "" && cwd != "" {
		out = append(out, userSource{path: filepath.Join(home, ".claude.json"), client: claudeLocal, section: "projects"})
	}
	return out
}

// zedDir is where Zed keeps its settings: ~/.config/zed on macOS (not the
// Application Support directory), the config directory's Zed on Windows,
// and $XDG_CONFIG_HOME/zed (the config directory) elsewhere.
func zedDir(home, configDir string) string {
	switch runtime.GOOS {
	case "darwin":
		return join(home, ".config", "zed")
	case "windows":
		return join(configDir, "Zed")
	}
	return join(configDir, "zed")
}

// xdgConfigDir is $XDG_CONFIG_HOME (when absolute) or ~/.config on every
// system, as programs that follow the XDG layout everywhere (OpenCode) use
// it: on Linux that is the config directory itself.
func xdgConfigDir(goos, home, configDir, xdg string) string {
	if goos != "darwin" && goos != "windows" {
		return configDir
	}
	if filepath.IsAbs(xdg) {
		return xdg
	}
	return join(home, ".config")
}

// claudeDesktopDir is where Claude Desktop keeps its configuration: the
// config directory's Claude, except on Windows when the app was installed
// from its MSIX package, which keeps it in the package's own copy of
// AppData (LOCALAPPDATA\Packages\Claude_ID\LocalCache\Roaming\Claude),
// preferred when a configuration is there.
func claudeDesktopDir(goos, configDir, localAppData string) string {
	if goos == "windows" && localAppData != "" {
		dirs, _ := filepath.Glob(filepath.Join(localAppData, "Packages", "Claude_*", "LocalCache", "Roaming", "Claude"))
		for _, d := range dirs {
			if st, err := os.Lstat(filepath.Join(d, "claude_desktop_config.json")); err == nil && st.Mode().IsRegular() {
				return d
			}
		}
	}
	return join(configDir, "Claude")
}

// join is filepath.Join that keeps an unknown base unknown.
func join(base string, elem ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base}, elem...)...)
}

// sourceKey tells sources apart: one file can be two.
func (s userSource) sourceKey() string {
	return s.path + "#" + s.section
}

// program names the program whose file the source is.
func (s userSource) program() string {
	if s.client == nil {
		return ""
	}
	return s.client.name
}

// sourceSection names the part of a file a source reads, for Source.
func (s userSource) sourceSection(cwd string) string {
	if s.section == "" {
		return ""
	}
	return fmt.Sprintf("projects[%q]", filepath.ToSlash(cwd))
}

// skippedWhy is the reason a whole file was skipped, for Source: the
// first problem, without its position.
func skippedWhy(es Errors) string {
	if len(es) == 0 {
		return ""
	}
	e := *es[0]
	e.Pos = Pos{}
	return strings.TrimSpace(e.Error())
}
