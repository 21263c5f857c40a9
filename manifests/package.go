package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// FindRoot walks up from cwd to the first directory whose package.json has a
// pi.mcp key, and returns that directory. A package.json without pi.mcp is
// passed over and the walk goes on; it stops at the filesystem root, with ok
// false. A package.json that is not the user's to trust (see safety.go:
// another user's, one that others could have written or swapped, or not a
// regular file) is passed over too, unread, and passed says so: one
// warning line each. err is only for a candidate package.json of the
// user's own that cannot be read or is not valid JSON.
func FindRoot(cwd string) (root string, ok bool, passed []string, err error) {
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", false, nil, err
	}
	for {
		path := filepath.Join(dir, "package.json")
		found, why, err := recipeAt(path)
		switch {
		case err != nil:
			return "", false, passed, err
		case why != "":
			passed = append(passed, fmt.Sprintf("%s: passed over: it %s", printable(path), why))
		case found:
			return dir, true, passed, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, passed, nil
		}
		dir = parent
	}
}

// recipeAt says whether the package.json at path makes its directory a
// recipe. One that is not the user's to trust never does, and is not
// read: why says what is wrong with it, so that passing it over is worth
// a word.
func recipeAt(path string) (found bool, why string, err error) {
	data, err := readFile(path, path)
	if se := refusedBy(err); se != nil {
		return false, se.Problem, nil
	}
	var top *node
	if err == nil {
		top, err = parseJSON(data, path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, "", nil
	case err != nil:
		return false, "", err
	}
	return piMCP(top) != nil, "", nil
}

// piMCP returns the member holding pi.mcp, or nil when there is none. A "pi"
// that is not an object has no mcp key.
func piMCP(top *node) *member {
	if top.kind != kObject {
		return nil
	}
	for i := range top.members {
		pi := top.members[i].val
		if top.members[i].key != "pi" || pi.kind != kObject {
			continue
		}
		for j := range pi.members {
			if pi.members[j].key == "mcp" {
				return &pi.members[j]
			}
		}
	}
	return nil
}

// parsePackage parses a whole package.json and returns its pi.mcp block, or
// nil, nil when it has no pi.mcp key. file names the input in positions.
// Problems come back as Errors; with problems it still returns what it
// could read, so that Load can go on to check the manifests.
func parsePackage(data []byte, file string) (*Package, error) {
	top, err := parseJSON(data, file)
	if err != nil {
		return nil, err
	}
	c := &checker{file: file}
	if top.kind != kObject {
		c.wrongType(top, "", "an object")
		return nil, c.errs
	}
	// Repeated "pi" or "mcp" keys would let a later one quietly win.
	if pi, ok := c.fields(top, "", []string{"pi"}, false); ok && pi["pi"] != nil && pi["pi"].val.kind == kObject {
		c.fields(pi["pi"].val, "pi", []string{"mcp"}, false)
	}
	m := piMCP(top)
	if m == nil {
		return nil, c.errs.err()
	}
	pkg := &Package{File: file, Pos: m.pos(file)}
	f, ok := c.fields(m.val, "pi.mcp", []string{"manifests", "servers"}, true)
	if !ok {
		return nil, c.errs
	}
	if mm := f["manifests"]; mm != nil {
		pkg.Manifests, pkg.ManifestsPos = c.manifestList(mm.val)
	}
	if sm := f["servers"]; sm != nil {
		pkg.Servers = c.policies(sm.val)
	}
	c.errs.sortStable()
	return pkg, c.errs.err()
}

func (c *checker) manifestList(n *node) ([]string, []Pos) {
	const field = "pi.mcp.manifests"
	list, pos, _ := c.strList(n, field)
	var out []string
	var outPos []Pos
	seen := map[string]int{}
	for i, p := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		clean := filepath.Clean(filepath.FromSlash(p))
		switch {
		case p == "":
			c.add(pos[i], f, "", "is empty", "name a manifest file relative to the package root")
			continue
		case filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") || !filepath.IsLocal(clean):
			c.add(pos[i], f, p, "is outside the package root",
				"manifests are paths inside the package, relative to package.json")
			continue
		}
		if prev, dup := seen[clean]; dup {
			c.add(pos[i], f, p, "is listed twice", fmt.Sprintf("it is already listed at line %d", prev))
			continue
		}
		seen[clean] = pos[i].Line
		out = append(out, p)
		outPos = append(outPos, pos[i])
	}
	return out, outPos
}

func (c *checker) policies(n *node) []ServerPolicy {
	const field = "pi.mcp.servers"
	if n.kind != kList {
		c.at(n, field, "", "must be a list of server entries, not "+c.kindName(n.kind),
			`write "servers": [{"id": "...", "tools": {"include": [...]}}]`)
		return nil
	}
	if c.tooMany(n, field, len(n.items)) {
		return nil
	}
	seen := map[string]Pos{}
	out := make([]ServerPolicy, 0, len(n.items))
	for i, it := range n.items {
		f := fmt.Sprintf("%s[%d]", field, i)
		ef, ok := c.fields(it, f, []string{"id", "required", "tools"}, true)
		if !ok {
			continue
		}
		sp := ServerPolicy{Pos: it.pos(c.file)}
		if m := ef["id"]; m == nil {
			c.at(it, f, "", "has no id", `every server entry needs "id"`)
		} else if id, ok := c.str(m.val, f+".id"); ok {
			sp.ID, sp.Pos = id, m.pos(c.file)
			c.serverID(id, m.val.pos(c.file), f+".id", seen)
		}
		if m := ef["required"]; m != nil {
			sp.Required, _ = c.boolean(m.val, f+".required")
		}
		if m := ef["tools"]; m != nil {
			tf, ok := c.fields(m.val, f+".tools", []string{"include", "exclude"}, true)
			if ok {
				if inc := tf["include"]; inc != nil {
					sp.Include, sp.IncludePos = c.toolList(inc.val, f+".tools.include", "include", true)
				}
				if exc := tf["exclude"]; exc != nil {
					sp.Exclude, sp.ExcludePos = c.toolList(exc.val, f+".tools.exclude", "exclude", false)
				}
			}
		}
		out = append(out, sp)
	}
	return out
}

// packageFile reads root/package.json for Load; like parsePackage it
// returns what it could read along with the problems, and the bytes it
// parsed (nil when it read none).
func packageFile(root string) (*Package, []byte, error) {
	path := filepath.Join(root, "package.json")
	data, err := readFile(path, "package.json")
	if err != nil {
		return nil, nil, err
	}
	pkg, err := parsePackage(data, "package.json")
	if pkg != nil {
		pkg.File = path
	}
	if err != nil {
		return pkg, data, err
	}
	if pkg == nil {
		return nil, data, &Error{Pos: Pos{File: "package.json"}, Field: "pi.mcp", Msg: "is missing",
			Hint: "a recipe's package.json declares its MCP servers under pi.mcp"}
	}
	return pkg, data, nil
}
