//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// everythingPkg is the npm package of the server every call goes to.
const everythingPkg = "@modelcontextprotocol/server-everything"

// catalogServers and catalogTools shape the scale measurement: this many
// upstream servers, each offering this many tools.
const (
	catalogServers = 10
	catalogTools   = 1000
)

// server is one entry of an mcpServers file.
type server struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// Lifecycle is mcporter's: "keep-alive" hands the server to its daemon.
	Lifecycle string `json:"lifecycle,omitempty"`
}

// writeRecipe writes a recipe into dir: a package.json whose pi.mcp block
// authorizes include of each server, and the manifest mcp.json.
func writeRecipe(dir string, servers map[string]server, include []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type policy struct {
		ID    string              `json:"id"`
		Tools map[string][]string `json:"tools"`
	}
	var pols []policy
	for _, id := range slices.Sorted(maps.Keys(servers)) {
		pols = append(pols, policy{ID: id, Tools: map[string][]string{"include": include}})
	}
	pkg := map[string]any{"pi": map[string]any{"mcp": map[string]any{"manifests": []string{"mcp.json"}, "servers": pols}}}
	if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "mcp.json"), map[string]any{"mcpServers": servers})
}

// trustRecipes trusts each recipe with `mcp trust DIR`, as a person who
// has read it would. A build from before project trust has no trust
// command, and starts any recipe's servers without one.
func trustRecipes(mcp string, env []string, dirs []string) error {
	help, _, _ := child{env: env, argv: []string{mcp, "--help"}}.output()
	if !strings.Contains(help, "\n  trust") {
		return nil
	}
	for _, dir := range dirs {
		if _, stderr, err := (child{env: env, argv: []string{mcp, "trust", dir}}).output(); err != nil {
			return fmt.Errorf("%s trust %s: %v: %s", mcp, dir, err, tail(stderr))
		}
	}
	return nil
}

// writeMcporter writes mcporter's project configuration (config/mcporter.json
// under dir) with one keep-alive server and no imports of other tools'
// configurations.
func writeMcporter(dir, id string, s server) error {
	s.Lifecycle = "keep-alive"
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "config", "mcporter.json"), map[string]any{
		"mcpServers": map[string]server{id: s},
		"imports":    []string{},
	})
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// catalogRecipe is the scale recipe: catalogServers catalogserver processes,
// each serving catalogTools tools grown from the catalog file.
func catalogRecipe(dir, bin, catalog string) error {
	servers := map[string]server{}
	for i := range catalogServers {
		servers["cat"+strconv.Itoa(i)] = server{Command: bin, Args: []string{"--catalog", catalog, "--scale", strconv.Itoa(catalogTools)}}
	}
	return writeRecipe(dir, servers, []string{"*"})
}

// environ is the environment of every child: this one, less what would
// point mcp or mcporter at anything outside the work directory, plus
// private temporary, cache, configuration and state directories. mcp puts
// its sockets under TMPDIR when XDG_RUNTIME_DIR is unset.
func environ(work, sockDir string) ([]string, error) {
	drop := map[string]bool{
		"TMPDIR": true, "XDG_RUNTIME_DIR": true, "XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true,
		"XDG_STATE_HOME": true, "XDG_DATA_HOME": true, "GODEBUG": true,
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || strings.HasPrefix(k, "MCP_") || strings.HasPrefix(k, "MCPORTER_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TMPDIR="+sockDir)
	return withXDG(env, filepath.Join(work, "xdg"))
}

// withXDG is env with its cache, configuration, state and data directories
// replaced by new ones under root.
func withXDG(env []string, root string) ([]string, error) {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "XDG_CACHE_HOME" || k == "XDG_CONFIG_HOME" || k == "XDG_STATE_HOME" || k == "XDG_DATA_HOME"
	})
	for _, d := range []string{"cache", "config", "state", "data"} {
		p := filepath.Join(root, d)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, err
		}
		out = append(out, "XDG_"+strings.ToUpper(d)+"_HOME="+p)
	}
	return out, nil
}

// socketDir is a private directory for TMPDIR, short enough that mcp keeps
// its sockets in it (a unix socket path has room for about 100 bytes).
func socketDir(work string) (string, error) {
	dir := filepath.Join(work, "t")
	if len(dir) > 60 {
		var err error
		if dir, err = os.MkdirTemp("/tmp", "mb"); err != nil {
			return "", err
		}
	} else if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// installed checks that dir/node_modules holds what the benchmark runs.
func installed(dir string) error {
	for _, p := range []string{
		filepath.Join("node_modules", filepath.FromSlash(everythingPkg), "package.json"),
		filepath.Join("node_modules", ".bin", "mcporter"),
	} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return fmt.Errorf("%s is missing: run `npm ci` in %s (run.sh does)", p, dir)
		}
	}
	return nil
}
