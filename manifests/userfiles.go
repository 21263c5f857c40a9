package manifests

import (
	"os"
	"path/filepath"
)

// UserFiles names the files Read(root, true) looks in for the user's own
// configuration, lowest precedence first, as messages show them (relative
// to root, or ~/...): what `mcp check` says it looked for when it found
// no server.
func UserFiles(root string) []string {
	home, _ := os.UserHomeDir()
	cfg, _ := os.UserConfigDir()
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	var out []string
	for _, src := range userSources(home, root, cfg) {
		out = append(out, displayPath(src.path, root, home))
	}
	return out
}

// ProjectFiles names the files of a working directory that are the
// project's, and need trust before their servers start, relative to it.
func ProjectFiles() []string {
	const cwd = "/project"
	var out []string
	for _, src := range userSources("", cwd, "") {
		if src.project {
			rel, _ := filepath.Rel(cwd, src.path)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}
