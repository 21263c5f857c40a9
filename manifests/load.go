package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsh/mcp/internal/safefile"
)

// Load reads the recipe whose package.json sits in root: its pi.mcp block,
// the manifests it names, the local bindings in .pi/mcp.local.json (each
// entry replaces the manifests' entry for the same server id whole) and every
// agent in agents/ (*.yaml, *.yml, *.md; names starting with "." are
// skipped). Positions name files relative to root.
//
// Two manifests defining the same server id is an error; so are a manifest
// that does not exist or whose path leaves the root (checked on the path as
// written: a symlink inside the root may point anywhere). Every problem in
// every file is returned, as Errors, but those of an agent's file (which
// include two files of the same agent): they are the agent's, in
// r.AgentErrors, and that agent is not in r.Agents.
//
// Trust: r.Trust says whether the recipe's directory is trusted with the
// files as they were read; when it is not, every endpoint carries
// Untrusted and must not be started or reached.
func Load(root string) (*Recipe, error) {
	r, errs := load(root, defaultTrustPlace())
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}

// load reads the recipe at root as Load does, and returns what it could
// read along with every problem. Trust is decided with p.
func load(root string, p trustPlace) (*Recipe, Errors) {
	root, err := filepath.Abs(root)
	if err != nil {
		return &Recipe{Root: root, Endpoints: map[string]Endpoint{}, Agents: map[string]*Agent{}}, asErrors(err, root)
	}
	r := &Recipe{Root: root, Endpoints: map[string]Endpoint{}, Agents: map[string]*Agent{}}
	w := newWatch()
	w.dir(root)
	tr := newTrustReads(root)
	var errs Errors

	pkgPath := filepath.Join(root, "package.json")
	w.file(pkgPath)
	pkg, data, err := packageFile(root)
	if data != nil {
		tr.add(pkgPath, data)
	}
	if err != nil {
		tr.failed(pkgPath, err)
		errs = append(errs, asErrors(err, "package.json")...)
	}
	r.Package = pkg

	// Manifests, then local bindings over them.
	if pkg != nil {
		errs = append(errs, loadManifests(r, root, w, tr)...)
	}
	localPath := filepath.Join(root, ".pi", "mcp.local.json")
	w.dir(filepath.Dir(localPath))
	if eps, found, err := readServersFile(localPath, ".pi/mcp.local.json", w, tr); err != nil {
		errs = append(errs, asErrors(err, ".pi/mcp.local.json")...)
	} else if found {
		for _, ep := range eps {
			r.Endpoints[CanonicalID(ep.ID)] = ep
		}
	}

	errs = append(errs, loadAgents(r, root, w)...)

	r.Files = w.list()
	// Every endpoint of a recipe comes from its own files.
	project := map[string]bool{}
	for id := range r.Endpoints {
		project[id] = true
	}
	p.decide(r, tr, project)
	return r, errs
}

// loadManifests reads the manifests r.Package names into r.Endpoints.
func loadManifests(r *Recipe, root string, w *watch, tr *trustReads) Errors {
	var errs Errors
	pkg := r.Package
	from := map[string]Pos{} // canonical id -> where a manifest defined it
	for i, m := range pkg.Manifests {
		rel := filepath.Clean(filepath.FromSlash(m))
		path := filepath.Join(root, rel)
		display := filepath.ToSlash(rel)
		data, err := readFile(path, display)
		if errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, &Error{Pos: pkg.ManifestsPos[i], Field: fmt.Sprintf("pi.mcp.manifests[%d]", i),
				Value: m, Msg: "does not exist", Hint: "manifests are paths relative to package.json", Err: err})
			continue
		}
		w.file(path)
		if err != nil {
			tr.failed(path, err)
			errs = append(errs, asErrors(err, display)...)
			continue
		}
		tr.add(path, data)
		eps, _, err := parseServers(data, display, "mcpServers", false)
		if err != nil {
			errs = append(errs, asErrors(err, display)...)
			continue
		}
		for _, ep := range eps {
			id := CanonicalID(ep.ID)
			if prev, dup := from[id]; dup {
				errs = append(errs, &Error{Pos: ep.Pos, Field: "mcpServers", Value: ep.ID,
					Msg:  "is already defined by another manifest",
					Hint: "it is defined at " + prev.String() + "; keep one definition"})
				continue
			}
			from[id] = ep.Pos
			ep.Dir = filepath.Dir(path)
			r.Endpoints[id] = ep
		}
	}
	return errs
}

// readServersFile reads an mcpServers file of ours if it exists.
func readServersFile(path, display string, w *watch, tr *trustReads) ([]Endpoint, bool, error) {
	data, err := readFile(path, display)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	w.file(path)
	if err != nil {
		tr.failed(path, err)
		return nil, true, err
	}
	tr.add(path, data)
	eps, _, err := parseServers(data, display, "mcpServers", false)
	if err != nil {
		return nil, true, err
	}
	for i := range eps {
		eps[i].Dir = filepath.Dir(path)
	}
	return eps, true, nil
}

var agentExts = []string{".yaml", ".yml", ".md"}

// loadAgents reads agents/ into r.Agents, and the problems of each file
// that cannot be read into r.AgentErrors; only an agents directory that
// cannot be read is the recipe's problem.
func loadAgents(r *Recipe, root string, w *watch) Errors {
	dir := filepath.Join(root, "agents")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return Errors{{Pos: Pos{File: "agents"}, Msg: "cannot read the agents directory: " + safefile.Describe(err), Err: err}}
	}
	w.dir(dir)
	files := map[string]string{} // agent name -> file it came from
	for _, e := range entries {
		fname := e.Name()
		ext := filepath.Ext(fname)
		if strings.HasPrefix(fname, ".") || !slices.Contains(agentExts, ext) || e.IsDir() {
			continue
		}
		name := strings.TrimSuffix(fname, ext)
		display := "agents/" + fname
		path := filepath.Join(dir, fname)
		w.file(path)
		if prev, dup := files[name]; dup {
			r.agentFailed(name, Errors{&Error{Pos: Pos{File: display}, Value: name, Msg: "is already an agent",
				Hint: "it is defined by " + prev + "; an agent has one file"}})
			continue
		}
		files[name] = display
		data, err := readFile(path, display)
		if err != nil {
			r.agentFailed(name, asErrors(err, display))
			continue
		}
		a, err := parseAgent(data, display, name)
		if err != nil {
			r.agentFailed(name, asErrors(err, display))
			continue
		}
		a.File = path
		r.Agents[name] = a
	}
	return nil
}

// agentFailed records the problems of one agent's file: they are that
// agent's, not the recipe's.
func (r *Recipe) agentFailed(name string, errs Errors) {
	if r.AgentErrors == nil {
		r.AgentErrors = map[string]Errors{}
	}
	r.AgentErrors[name] = append(r.AgentErrors[name], errs...)
}

// watch collects the paths a reload watcher should look at: each file that
// exists, each file that would be read if it appeared (in a directory that
// exists), and each existing directory whose entries decide what is read.
type watch struct{ seen map[string]bool }

func newWatch() *watch { return &watch{seen: map[string]bool{}} }

// candidate watches a file that is read when it is there: it, and not
// the rest of its directory (a user's home directory changes all the
// time).
func (w *watch) candidate(path string) {
	if fi, err := os.Stat(filepath.Dir(path)); err == nil && fi.IsDir() {
		w.seen[path] = true
	}
}

func (w *watch) file(path string) {
	if exists(path) {
		w.seen[path] = true
	}
}

func (w *watch) dir(path string) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		w.seen[path] = true
	}
}

// list is files first, then directories, each sorted.
func (w *watch) list() []string {
	var files, dirs []string
	for p := range w.seen {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	slices.Sort(dirs)
	return append(files, dirs...)
}
