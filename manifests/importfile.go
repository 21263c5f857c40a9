package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ownShape reads a file of our own shape elsewhere: servers under
// mcpServers, as Claude Desktop and Cursor write them.
var ownShape = &client{name: "mcp.json", open: underKey("mcpServers", editorShape)}

// ImportFile reads the servers of one program's MCP configuration, for
// mcp init --from: the file is read as LoadUser reads that program's file
// in its place, the program told by the file's name and directory
// (claude_desktop_config.json, .claude.json, .mcp.json, mcp_config.json,
// config.toml, opencode.json, .cursor/mcp.json, .vscode/mcp.json or
// Code/User/mcp.json, .gemini/settings.json, zed/settings.json; any other
// .json file is read as servers under mcpServers). Entries the program
// switched off are left out; an entry mcp cannot use is skipped, and
// each such problem is a warning.
func ImportFile(path, home string) (map[string]Endpoint, []string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	c, err := clientOf(abs)
	if err != nil {
		return nil, nil, err
	}
	x := &importCtx{home: home, cwd: filepath.Dir(abs), parsed: map[string]parsedFile{}, bytes: map[string][]byte{}}
	display := displayPath(abs, "", home)
	eps, skipped, err := userSource{path: abs, client: c}.load(display, x)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, &Error{Pos: Pos{File: display}, Msg: "does not exist"}
	case errors.Is(err, errNothing):
		return nil, nil, &Error{Pos: Pos{File: display}, Msg: "holds no MCP servers for " + c.name}
	case err != nil:
		return nil, nil, err
	}
	out := make(map[string]Endpoint, len(eps))
	for _, ep := range eps {
		ep.Dir = filepath.Dir(abs)
		out[CanonicalID(ep.ID)] = ep
	}
	var warns []string
	for _, e := range skipped {
		warns = append(warns, "skipped entry: "+e.Error())
	}
	return out, warns, nil
}

// clientOf is the program whose configuration path is.
func clientOf(path string) (*client, error) {
	base, dir := filepath.Base(path), filepath.Base(filepath.Dir(path))
	switch base {
	case "claude_desktop_config.json":
		return claudeDesktop, nil
	case ".claude.json":
		return claudeUser, nil
	case ".mcp.json":
		return claudeCode, nil
	case "mcp_config.json":
		return windsurf, nil
	case "config.toml":
		return codex, nil
	case "opencode.json", "opencode.jsonc":
		return opencode, nil
	case "settings.json":
		switch strings.ToLower(strings.TrimPrefix(dir, ".")) {
		case "gemini":
			return gemini, nil
		case "zed":
			return zed, nil
		}
		return nil, fmt.Errorf("%s: cannot tell whose settings.json this is: Gemini CLI's is in .gemini, Zed's in zed", path)
	case "mcp.json":
		switch dir {
		case ".cursor":
			return cursor, nil
		case ".vscode", "User":
			return vscode, nil
		}
	}
	if filepath.Ext(base) == ".json" {
		return ownShape, nil
	}
	return nil, fmt.Errorf("%s: not an MCP configuration mcp reads: a JSON file with mcpServers, or one of the programs' files (claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json, ~/.codex/config.toml, ...)", path)
}
