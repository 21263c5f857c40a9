package manifests

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsh/mcp/internal/safefile"
)

// Trust covers the files a project's stdio servers run by a path inside
// the project directory, as well as the configuration that names them: a
// manifest saying "./server.sh" is only as trustworthy as server.sh. The
// candidates are an endpoint's command, when it holds a path separator
// (resolved against the directory of its file, as Expand resolves it), and
// each of its args (resolved against its cwd, else that directory, where
// the server will run), when written without ${...}. Those that name an
// existing regular file inside the project directory are digested with the
// rest. What those files load in turn (imports, modules, node_modules) is
// not covered.

// maxScriptSize is the largest file trust digests; a larger one keeps its
// directory from being trusted, as an unsafe file does.
const (
	maxScriptSize   = 64 << 20
	scriptSizeLabel = "64 MiB"
)

var errScriptTooLarge = errors.New("too large")

// addScripts adds the files that the stdio endpoints of the project run
// by a path inside t.root, and returns their paths (for the watch list).
func (t *trustReads) addScripts(eps map[string]Endpoint, project map[string]bool) []string {
	var added []string
	for id, ep := range eps {
		if !project[id] {
			continue
		}
		for _, p := range scriptPaths(ep) {
			rel, err := filepath.Rel(t.root, p)
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			t.addScript(p)
			added = append(added, p)
		}
	}
	return added
}

// addScript digests one file run by an endpoint, or records why it cannot
// be trusted.
func (t *trustReads) addScript(path string) {
	name := t.name(path)
	if _, read := t.files[name]; read {
		return // a configuration file, digested as it was parsed
	}
	if strings.ContainsAny(name, "\x00\n") {
		t.refuse(path, "has a line break in its name, which mcp trust cannot record")
		return
	}
	sum, err := digestFile(path)
	switch {
	case refusedBy(err) != nil:
		t.refuse(path, refusedBy(err).Problem)
	case errors.Is(err, errScriptTooLarge):
		t.refuse(path, "is larger than "+scriptSizeLabel+", the most mcp trust digests")
	case err != nil:
		t.refuse(path, "cannot be read ("+safefile.Describe(err)+")")
	default:
		t.files[name] = sum
	}
}

// scriptPaths are the absolute paths an endpoint may run or read, as
// written: its command when it holds a path separator, and its args.
func scriptPaths(ep Endpoint) []string {
	if ep.Command == "" || ep.URL != "" || ep.Dir == "" {
		return nil
	}
	literal := func(s string) bool { return s != "" && !strings.Contains(s, "${") }
	var out []string
	if literal(ep.Command) && strings.ContainsAny(ep.Command, "/"+string(filepath.Separator)) {
		out = append(out, against(ep.Dir, ep.Command))
	}
	cwd := ep.Dir
	if ep.Cwd != "" {
		if !literal(ep.Cwd) {
			return out // where the args are read from is not known until expansion
		}
		cwd = against(ep.Dir, ep.Cwd)
	}
	for _, a := range ep.Args {
		if literal(a) {
			out = append(out, against(cwd, a))
		}
	}
	return out
}

// against is p resolved against dir when it is relative.
func against(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// digestFile is the sha256 of the file at path, when it passes the
// ownership rule, read to the end and at most maxScriptSize long.
func digestFile(path string) (string, error) {
	f, err := safefile.Options{Limit: maxScriptSize}.Open(path)
	var se *safefile.Error
	if errors.As(err, &se) && se.Kind == safefile.TooLarge {
		return "", errScriptTooLarge
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxScriptSize+1))
	switch {
	case err != nil:
		return "", err
	case n > maxScriptSize:
		return "", errScriptTooLarge
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
