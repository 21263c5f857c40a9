package manifests

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
)

// Project trust: the files of a project directory that can start a process
// or send a credential (a recipe's package.json, its manifests and
// .pi/mcp.local.json; the editor configurations LoadUser reads from the
// working directory), and the files inside it that their servers run by
// path (trustscripts.go), start nothing until the directory has been
// recorded in the trust store with a digest of exactly those files. Files
// in the user's home directory are the user's own and need no trust.
//
// Reading never needs trust: Load and LoadUser parse every file and mark
// each endpoint that came from an untrusted directory (Endpoint.Untrusted).
// Whoever connects refuses such an endpoint.

// UntrustedError says a server's endpoint comes from a project directory
// that the user has not trusted, or that changed since they did.
type UntrustedError struct {
	Server string `json:"server"`
	// Dir is the directory to trust (symlinks resolved).
	Dir string `json:"dir"`
	// Changed names the files that differ from what was trusted; empty
	// when the directory was never trusted.
	Changed []string `json:"changed,omitempty"`
	// Unsafe, when set, says the directory cannot be trusted at all: a
	// file of it is not the user's to trust ("mcp.json is owned by ...").
	Unsafe string `json:"unsafe,omitempty"`
}

func (e *UntrustedError) ExitCode() int { return exit.Config }

func (e *UntrustedError) Error() string {
	if e.Unsafe != "" {
		return fmt.Sprintf("server %s comes from %s, which cannot be trusted: %s", e.Server, printable(e.Dir), printable(e.Unsafe))
	}
	if len(e.Changed) > 0 {
		return fmt.Sprintf("server %s comes from %s, which changed since you trusted it (%s)",
			e.Server, printable(e.Dir), printable(strings.Join(e.Changed, ", ")))
	}
	return fmt.Sprintf("server %s comes from %s, which you have not trusted", e.Server, printable(e.Dir))
}

// Summary says the cause in a word, for mcp list.
func (e *UntrustedError) Summary() string { return "untrusted" }

// Refusal is the error that keeps ep from being started or reached, or nil
// when it may be.
func (e Endpoint) Refusal() error {
	if e.Untrusted == nil {
		return nil
	}
	return e.Untrusted
}

// TrustedFile is one file as trust was given for it.
type TrustedFile struct {
	// Path is relative to the trusted directory, with slashes; absolute
	// for a file outside it.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // of the content, hex
}

// TrustState is what trust a recipe's project files need and have.
type TrustState struct {
	// Dir is the project directory (symlinks resolved).
	Dir string `json:"dir"`
	// Files are the trust-relevant files as they were read, by path:
	// those that may be trusted.
	Files []TrustedFile `json:"files"`
	// Unsafe are the trust-relevant files that are not the user's to
	// trust (see safety.go), by path. While there is one, Dir is not
	// trusted and cannot be.
	Unsafe []UnsafeFile `json:"unsafe,omitempty"`
	// Needed is false when nothing read needs trust: Dir is the user's
	// home directory (Home), or (outside a recipe) it has no project files.
	Needed bool `json:"needed"`
	Home   bool `json:"home,omitempty"`
	// Trusted says the trust store holds Dir with exactly these files (or
	// that no trust is needed).
	Trusted bool `json:"trusted"`
	// Since is when Dir was trusted, when it was.
	Since time.Time `json:"since,omitzero"`
	// Changed names the files added, removed, edited or no longer the
	// user's to trust since Dir was trusted; empty when it never was.
	Changed []string `json:"changed,omitempty"`
	// Servers are the servers whose endpoints need this trust: those of
	// the package boundary (every one found, outside a recipe), as
	// written, sorted.
	Servers []string `json:"servers"`
}

// Digest is the sha256 over the sorted (path, content) of files.
func Digest(files []TrustedFile) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// trustReads collects the trust-relevant files a load read, with the
// digest of the bytes it parsed (not of what is on disk later), and those
// it would have read but that are not the user's to trust.
type trustReads struct {
	root   string // the directory as it was read (not resolved)
	files  map[string]string
	unsafe map[string]string // name -> why
}

func newTrustReads(root string) *trustReads {
	return &trustReads{root: root, files: map[string]string{}, unsafe: map[string]string{}}
}

// add records a file as read: readFile read it, so it passed the
// ownership rule.
func (t *trustReads) add(path string, data []byte) {
	sum := sha256.Sum256(data)
	t.files[t.name(path)] = hex.EncodeToString(sum[:])
}

// failed records a file that could not be read because it is not the
// user's to trust, when err says so.
func (t *trustReads) failed(path string, err error) {
	if se := refusedBy(err); se != nil {
		t.refuse(path, se.Problem)
	}
}

// refuse records a file that is not the user's to trust.
func (t *trustReads) refuse(path, why string) {
	name := t.name(path)
	delete(t.files, name)
	t.unsafe[name] = why
}

// name is how the store names path: relative to the root, with slashes,
// or absolute outside it.
func (t *trustReads) name(path string) string {
	if rel, err := filepath.Rel(t.root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

func (t *trustReads) list() []TrustedFile {
	out := make([]TrustedFile, 0, len(t.files))
	for p, sum := range t.files {
		out = append(out, TrustedFile{Path: p, SHA256: sum})
	}
	slices.SortFunc(out, func(a, b TrustedFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func (t *trustReads) unsafeList() []UnsafeFile {
	var out []UnsafeFile
	for p, why := range t.unsafe {
		out = append(out, UnsafeFile{Path: p, Problem: why})
	}
	slices.SortFunc(out, func(a, b UnsafeFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// trustPlace is where trust is decided: the trust store, and the user's
// home directory, whose files need none.
type trustPlace struct{ store, home string }

func defaultTrustPlace() trustPlace {
	store, _ := TrustStorePath()
	home, _ := os.UserHomeDir()
	return trustPlace{store: store, home: home}
}

// resolveDir is dir made absolute with symlinks resolved, as the trust
// store keys it; dir itself when it cannot be resolved.
func resolveDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// decide fills in r.Trust for the files read from t.root and marks the
// endpoints that came from them (project: by canonical id) when the
// directory is not trusted. A trust store that cannot be used trusts
// nothing and adds one warning.
func (p trustPlace) decide(r *Recipe, t *trustReads, project map[string]bool) {
	st := TrustState{Servers: []string{}}
	if t.root != "" {
		st.Dir = resolveDir(t.root)
	}
	st.Home = p.home != "" && resolveDir(p.home) == st.Dir
	var scripts []string
	if !st.Home && t.root != "" {
		scripts = t.addScripts(r.Endpoints, project)
		st.Unsafe = t.unsafeList()
	}
	st.Files = t.list()
	for id, ep := range r.Endpoints {
		if project[id] && (r.Package == nil || r.Package.declares(id)) {
			st.Servers = append(st.Servers, ep.ID)
		}
	}
	slices.Sort(st.Servers)
	st.Needed = !st.Home && (len(st.Files) > 0 || len(st.Unsafe) > 0)
	st.Trusted = !st.Needed
	if st.Needed {
		store, err := readTrustStore(p.store)
		if err != nil {
			r.Warnings = append(r.Warnings, err.Error())
		}
		if e := store.entry(st.Dir); e != nil {
			st.Since = e.Trusted
			st.Changed, st.Trusted = e.compare(st)
		}
	}
	r.Files = addWatched(append(r.Files, scripts...), p.store)
	r.Trust = st
	if st.Trusted {
		return
	}
	refusal := UntrustedError{Dir: st.Dir}
	if len(st.Unsafe) > 0 {
		refusal.Unsafe = st.Unsafe[0].String()
	}
	for id, ep := range r.Endpoints {
		if project[id] {
			u := refusal
			u.Server, u.Changed = ep.ID, slices.Clone(st.Changed)
			ep.Untrusted = &u
			r.Endpoints[id] = ep
		}
	}
}

// compare says which of st's files changed since e was trusted (added,
// removed, edited, or no longer the user's to trust), and whether st is
// still what was trusted.
func (e *trustEntry) compare(st TrustState) (changed []string, same bool) {
	changed = changedFiles(e.Files, st.Files)
	for _, u := range st.Unsafe {
		changed = append(changed, u.Path)
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	return changed, len(changed) == 0 && e.Digest == Digest(st.Files)
}

// declares says whether the package boundary holds a server.
func (p *Package) declares(id string) bool {
	return slices.ContainsFunc(p.Servers, func(s ServerPolicy) bool { return CanonicalID(s.ID) == id })
}

// changedFiles names the files of was and now that differ: added,
// removed or edited.
func changedFiles(was, now []TrustedFile) []string {
	before := map[string]string{}
	for _, f := range was {
		before[f.Path] = f.SHA256
	}
	var out []string
	for _, f := range now {
		if sum, ok := before[f.Path]; !ok || sum != f.SHA256 {
			out = append(out, f.Path)
		}
		delete(before, f.Path)
	}
	for p := range before {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// addWatched adds the trust store ("" for none) and its directory to a
// recipe's watch list, and puts the list in order (files first, then
// directories, each sorted, once), so that trusting or forgetting, and a
// change of a file trust covers, is noticed by whoever watches the recipe.
func addWatched(list []string, store string) []string {
	var files, dirs []string
	for _, p := range list {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	if store != "" && exists(store) {
		files = append(files, store)
	}
	if fi, err := os.Stat(filepath.Dir(store)); store != "" && err == nil && fi.IsDir() {
		dirs = append(dirs, filepath.Dir(store))
	}
	slices.Sort(files)
	slices.Sort(dirs)
	return append(slices.Compact(files), slices.Compact(dirs)...)
}

// TrustOnce lets every endpoint of r start, for one invocation whose user
// asked for it on the command line. Nothing is recorded. A directory with
// a file that is not the user's to trust stays refused: nobody can vouch
// for what another user may change.
func (r *Recipe) TrustOnce() {
	if len(r.Trust.Unsafe) > 0 {
		return
	}
	for id, ep := range r.Endpoints {
		ep.Untrusted = nil
		r.Endpoints[id] = ep
	}
	r.Trust.Trusted = true
}
