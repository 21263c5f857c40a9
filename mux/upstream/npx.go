package upstream

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsh/mcp/manifests"
)

// DirectCommand starts a package runner's package directly when it is
// installed already. `npx -y pkg args`, `pnpm dlx pkg args`, `yarn dlx pkg
// args` and `bunx pkg args` pay the runner's own start (about a second for
// npx) before the server starts; when node_modules at or above the server's
// working directory holds pkg at the version asked for, its binary gets the
// same args instead. Anything this does not fully understand (other
// runner flags, version ranges or tags, packages with several binaries and
// none named after the package) runs through the runner as written. An
// installed package passed over for a reason the user should know is told
// to warn (when not nil) in one line.
func DirectCommand(ep manifests.Endpoint, warn func(string)) manifests.Endpoint {
	if ep.Command == "" || ep.URL != "" {
		return ep
	}
	runner := filepath.Base(ep.Command)
	spec, rest, ok := runnerPackage(runner, ep.Args)
	if !ok {
		return ep
	}
	bin, err := installedBin(ep.Cwd, spec)
	if err != nil && warn != nil {
		name, _ := splitSpec(spec)
		warn(fmt.Sprintf("%s: not starting the installed %s directly: %s; running %s as written", ep.ID, name, printable(err.Error(), 400), runner))
	}
	if bin == "" {
		return ep
	}
	// The runner puts node_modules/.bin first on PATH (a package may
	// depend on binaries of its own, node itself among them); so does this.
	env := make(map[string]string, len(ep.Env)+1)
	for k, v := range ep.Env {
		env[k] = v
	}
	path, ok := env["PATH"]
	if !ok {
		path = os.Getenv("PATH")
	}
	env["PATH"] = filepath.Dir(bin) + string(os.PathListSeparator) + path
	ep.Command, ep.Args, ep.Env = bin, rest, env
	return ep
}

// runnerPackage parses a runner's argv into the package spec and the
// arguments for the package's binary.
func runnerPackage(runner string, args []string) (spec string, rest []string, ok bool) {
	var flags map[string]bool
	switch runner {
	case "npx":
		flags = map[string]bool{"-y": true, "--yes": true, "-q": true, "--quiet": true}
	case "bunx":
		flags = map[string]bool{}
	case "pnpm", "yarn":
		if len(args) == 0 || args[0] != "dlx" {
			return "", nil, false
		}
		args = args[1:]
		flags = map[string]bool{}
	default:
		return "", nil, false
	}
	for i, a := range args {
		switch {
		case a == "--":
			if i+1 >= len(args) {
				return "", nil, false
			}
			return args[i+1], args[i+2:], true
		case strings.HasPrefix(a, "-"):
			if !flags[a] {
				return "", nil, false
			}
		default:
			return a, args[i+1:], true
		}
	}
	return "", nil, false
}

// splitSpec splits "@scope/name@1.2.3" into name and version ("" when none).
func splitSpec(spec string) (name, version string) {
	at := strings.LastIndex(spec, "@")
	if at <= 0 {
		return spec, ""
	}
	return spec[:at], spec[at+1:]
}

// installedBin finds the binary of spec in node_modules at or above dir:
// "" and nil when it is not installed.
func installedBin(dir, spec string) (string, error) {
	name, version := splitSpec(spec)
	if !validPackageName(name) || dir == "" {
		return "", nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		pkgDir := filepath.Join(d, "node_modules", filepath.FromSlash(name))
		if data, err := os.ReadFile(filepath.Join(pkgDir, "package.json")); err == nil {
			bin, ok := pickBin(data, name, version)
			if !ok {
				return "", nil
			}
			path := filepath.Join(d, "node_modules", ".bin", bin)
			if st, err := os.Stat(path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				return "", nil
			}
			return path, nil
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// pickBin returns the binary npx would run for the installed package whose
// package.json is data, if its version is the one asked for.
func pickBin(data []byte, name, version string) (string, bool) {
	var pkg struct {
		Name    string          `json:"name"`
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Name != name {
		return "", false
	}
	if version != "" && version != pkg.Version {
		return "", false // a tag or range: let the runner decide
	}
	short := name[strings.LastIndex(name, "/")+1:]
	var one string
	if json.Unmarshal(pkg.Bin, &one) == nil && one != "" {
		return short, true
	}
	var many map[string]string
	if json.Unmarshal(pkg.Bin, &many) != nil || len(many) == 0 {
		return "", false
	}
	if len(many) == 1 {
		for k := range many {
			return safeBinName(k)
		}
	}
	if _, ok := many[short]; ok {
		return short, true
	}
	return "", false
}

func safeBinName(s string) (string, bool) {
	if s == "" || strings.ContainsAny(s, `/\`) || s == "." || s == ".." {
		return "", false
	}
	return s, true
}

// validPackageName accepts npm names ("name", "@scope/name") without path tricks.
func validPackageName(name string) bool {
	parts := strings.Split(name, "/")
	switch {
	case len(parts) == 1:
	case len(parts) == 2 && strings.HasPrefix(parts[0], "@") && len(parts[0]) > 1:
	default:
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.HasPrefix(p, ".") || strings.ContainsAny(p, `\ `) {
			return false
		}
	}
	return true
}
