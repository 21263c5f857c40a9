package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpsh/mcp/internal/safefile"
	"github.com/mcpsh/mcp/manifests"
)

// DirectCommand starts a package runner's package directly when it is
// installed already. `npx -y pkg args`, `pnpm dlx pkg args`, `yarn dlx pkg
// args` and `bunx pkg args` pay the runner's own start (about a second for
// npx) before the server starts; when the node_modules npm would take pkg
// from (installedBin) holds it at the version asked for, its binary gets
// the same args instead. Anything this does not fully understand (other
// runner flags, version ranges or tags, packages with several binaries and
// none named after the package), and a package not installed there, runs
// through the runner as written. A package installed there that is another
// user's, or that others may change, is refused: the runner would run it
// too. The error is an *UnavailableError caused by a *ForeignPackageError.
func DirectCommand(ep manifests.Endpoint) (manifests.Endpoint, error) {
	if ep.Command == "" || ep.URL != "" {
		return ep, nil
	}
	runner := runnerName(ep.Command)
	spec, rest, ok := runnerPackage(runner, ep.Args)
	if !ok {
		return ep, nil
	}
	bin, err := installedBin(ep.Cwd, spec)
	var unsafe *unsafePathError
	if errors.As(err, &unsafe) {
		return ep, &UnavailableError{Server: ep.ID, Err: &ForeignPackageError{
			Server: ep.ID, Runner: runner, Path: unsafe.path, Owner: unsafe.owner, Why: unsafe.why}}
	}
	if bin == "" {
		return ep, nil
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
	ep.Command, ep.Args, ep.Env = bin, rest, env
	if script := binScript(bin); script != "" {
		// npm's shims on Windows are .cmd files, which only cmd.exe runs;
		// the script runs under node, as the shim runs it.
		bin = filepath.Join(npmPrefix(ep.Cwd), "node_modules", ".bin", "shim")
		ep.Command, ep.Args = "node", append([]string{script}, rest...)
	}
	env["PATH"] = filepath.Dir(bin) + string(os.PathListSeparator) + path
	return ep, nil
}

// runnerName is the runner a command names: its base name, without the
// .cmd or .exe Windows gives it.
func runnerName(command string) string {
	base := filepath.Base(command)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".cmd") || strings.EqualFold(ext, ".exe") {
		base = strings.TrimSuffix(base, ext)
	}
	return base
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

// installedBin finds the binary of spec where npm run in dir looks for
// an installed package: the node_modules of npm's local prefix (npmPrefix),
// and nowhere above it. It is "" and nil when spec is not installed there
// at the version asked for. An error says why what is installed there is
// not to be run at all, by the shortcut or by the runner: a path on the
// way to the binary, or to the package.json that names it, is another
// user's or may be written by others (checkPath).
func installedBin(dir, spec string) (string, error) {
	name, version := splitSpec(spec)
	if !validPackageName(name) || dir == "" {
		return "", nil
	}
	prefix := npmPrefix(dir)
	nm := filepath.Join(prefix, "node_modules")
	pkgDir := filepath.Join(nm, filepath.FromSlash(name))
	pkgJSON := filepath.Join(pkgDir, "package.json")
	if _, err := os.Lstat(pkgJSON); err != nil {
		return "", nil
	}
	// The prefix and every directory above it are the user's or root's
	// and nobody else may write them (unless sticky): whoever could would
	// swap node_modules between this check and the start.
	if why := safefile.CheckDir(prefix); why != "" {
		return "", &unsafePathError{path: nm, why: why}
	}
	chain := []string{nm}
	if scope, _, ok := strings.Cut(name, "/"); ok {
		chain = append(chain, filepath.Join(nm, scope))
	}
	if err := checkPaths(append(chain, pkgDir, pkgJSON)...); err != nil {
		return "", unsafeOnly(err)
	}
	data, ok := readManifest(pkgJSON)
	if !ok {
		return "", nil
	}
	bin, ok := pickBin(data, name, version)
	if !ok {
		return "", nil
	}
	if shims {
		return shimBin(nm, pkgDir, data, bin)
	}
	path := filepath.Join(nm, ".bin", bin)
	if _, err := os.Lstat(path); err != nil {
		return "", nil
	}
	if err := checkPaths(binChain(nm, path)...); err != nil {
		return "", unsafeOnly(err)
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return "", nil
	}
	return path, nil
}

// npmPrefix is npm's local prefix for a command run in dir: the nearest
// directory at or above dir that holds a package.json file or a
// node_modules directory, else dir (loadLocalPrefix in @npmcli/config,
// which npm exec and npx resolve packages from). npm goes on up only to
// a workspace root that lists the prefix as a workspace; the shortcut does
// not, and so looks no higher than npm would.
func npmPrefix(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "package.json")); err == nil && st.Mode().IsRegular() {
			return d
		}
		if st, err := os.Stat(filepath.Join(d, "node_modules")); err == nil && st.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// binChain is what running the binary at path, in nm/.bin, goes through:
// the .bin directory, the entry, and the file the entry resolves to with
// the directories from that file up to node_modules (only the file's own
// directory, for a file outside node_modules).
func binChain(nm, path string) []string {
	chain := []string{filepath.Dir(path), path}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return chain // checkPaths says why
	}
	top, err := filepath.EvalSymlinks(nm)
	if err != nil {
		top = nm
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		chain = append(chain, d)
		rel, err := filepath.Rel(top, d)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			break
		}
	}
	return append(chain, real)
}

// readManifest reads a package.json of at most a MiB; ok is false for
// anything else (a directory, a device, a pipe nobody writes to).
func readManifest(path string) ([]byte, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil || len(data) > maxManifest {
		return nil, false
	}
	return data, true
}

const maxManifest = 1 << 20

// unsafePathError says why a path is not to be used: whose it is (owner,
// "ada (uid 1001)", when it is another user's), or else who else may
// write it (why, a predicate).
type unsafePathError struct{ path, owner, why string }

func (e *unsafePathError) Error() string {
	if e.owner != "" {
		return e.path + " belongs to " + e.owner
	}
	return e.path + " " + e.why
}

// unsafeOnly is err when it says a path is not to be used, nil when it
// says only that the path could not be read (a broken install, which the
// runner as written may mend).
func unsafeOnly(err error) error {
	var ue *unsafePathError
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}

// checkPaths checks each of paths in turn with checkPath.
func checkPaths(paths ...string) error {
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	return nil
}

// checkPath says why the file or directory at path is not to be run or
// read as code of this user's: it, or what it links to, belongs to another
// user than this one and root, or its group or others may write it.
func checkPath(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if err := checkOwner(path, fi); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if fi, err = os.Stat(real); err != nil {
		return err
	}
	return checkOwner(real, fi)
}

// checkOwner applies checkPath's rule to path, described by fi. Where
// files have no owner to go by (fileOwner), nothing is refused.
func checkOwner(path string, fi fs.FileInfo) error {
	uid, ok := fileOwner(fi)
	if !ok {
		return nil
	}
	if uid != 0 && uid != os.Geteuid() {
		who := "uid " + strconv.Itoa(uid)
		if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			who = u.Username + " (" + who + ")"
		}
		return &unsafePathError{path: path, owner: who}
	}
	if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode().Perm()&0o022 != 0 {
		return &unsafePathError{path: path, why: fmt.Sprintf("may be written by others than its owner (mode %04o)", fi.Mode().Perm())}
	}
	return nil
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
