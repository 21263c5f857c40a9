package recipeinit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsh/mcp/manifests"
)

// The shapes of what init writes.
type (
	piMCP struct {
		Manifests []string      `json:"manifests"`
		Servers   []serverEntry `json:"servers"`
	}
	serverEntry struct {
		ID    string     `json:"id"`
		Tools toolsEntry `json:"tools"`
	}
	toolsEntry struct {
		Include []string `json:"include"`
	}
	agentFile struct {
		MCP agentMCP `yaml:"mcp"`
	}
	agentMCP struct {
		Mode    string                 `yaml:"mode"`
		Servers map[string]agentServer `yaml:"servers"`
	}
	agentServer struct {
		Include []string `yaml:"include,flow"`
	}
	// newPackage is the package.json of a directory that has none.
	newPackage struct {
		Name    string          `json:"name"`
		Private bool            `json:"private"`
		Pi      json.RawMessage `json:"pi"`
	}
)

// localBinding is the path of the local binding in a recipe.
var localBinding = filepath.Join(".pi", "mcp.local.json")

// file is one file init writes: its path in the recipe, what it holds,
// and whether it is private (the local binding).
type file struct {
	rel     string
	data    []byte
	private bool
	what    string // for the report
}

// render builds every file init writes.
func render(o Options, servers []*server, agents map[string]map[string][]string) ([]file, error) {
	var files []file
	pkg, err := packageJSON(o, servers)
	if err != nil {
		return nil, err
	}
	files = append(files, file{rel: "package.json", data: pkg})
	committed, local := map[string]manifests.Endpoint{}, map[string]manifests.Endpoint{}
	for _, s := range servers {
		committed[s.id] = s.committed
		if len(s.moved) > 0 {
			local[s.id] = s.local
		}
	}
	man, err := indentJSON(map[string]any{"mcpServers": committed})
	if err != nil {
		return nil, err
	}
	files = append(files, file{rel: "mcp.json", data: man})
	if len(local) > 0 {
		b, err := indentJSON(map[string]any{"mcpServers": local})
		if err != nil {
			return nil, err
		}
		files = append(files, file{rel: localBinding, data: b, private: true})
	}
	for _, name := range o.Agents {
		b, err := agentYAML(name, o.Mode, agents[name])
		if err != nil {
			return nil, err
		}
		files = append(files, file{rel: filepath.Join("agents", name+".yaml"), data: b})
	}
	if gi, ok := gitignore(o.Dir); ok {
		files = append(files, file{rel: ".gitignore", data: gi})
	}
	return files, nil
}

// packageJSON is the recipe's package.json: the one there with pi.mcp
// added (or, with --force, replaced), or a new one.
func packageJSON(o Options, servers []*server) ([]byte, error) {
	bound := piMCP{Manifests: []string{"mcp.json"}, Servers: []serverEntry{}}
	for _, s := range servers {
		include := s.tools
		if o.All {
			include = []string{"*"}
		} else if include == nil {
			include = []string{}
		}
		bound.Servers = append(bound.Servers, serverEntry{ID: s.id, Tools: toolsEntry{Include: include}})
	}
	pi, err := json.MarshalIndent(map[string]any{"mcp": bound}, "  ", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(o.Dir, "package.json")
	old, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return indentJSON(newPackage{Name: packageName(o.Dir), Private: true, Pi: json.RawMessage(pi)})
	}
	if err != nil {
		return nil, err
	}
	return withPi(old, pi, o.Force)
}

// withPi is the JSON object doc with its "pi" key set to pi, its other
// keys and their text as they were.
func withPi(doc, pi []byte, force bool) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || top == nil {
		why := "null"
		if err != nil {
			why = err.Error()
		}
		return nil, &Error{Msg: "package.json is not a JSON object: " + why, Hint: "fix it, or run mcp init in another directory"}
	}
	if old, ok := top["pi"]; ok {
		var p map[string]json.RawMessage
		if json.Unmarshal(old, &p) != nil || p == nil {
			return nil, &Error{Msg: "package.json has a pi key that is not an object", Hint: "fix it, or run mcp init in another directory"}
		}
		if _, has := p["mcp"]; has && !force {
			return nil, &Error{Msg: "package.json already has pi.mcp: this directory is a recipe", Hint: "--force replaces its pi key; `mcp check` shows what it holds"}
		}
		if len(p) > 1 || !has(p, "mcp") && len(p) > 0 {
			return nil, &Error{Msg: "package.json has a pi key with more than mcp in it", Hint: "add the mcp key to it by hand"}
		}
		start, end, err := valueSpan(doc, "pi")
		if err != nil {
			return nil, err
		}
		return slices.Concat(doc[:start], pi, doc[end:]), nil
	}
	end := bytes.LastIndexByte(doc, '}')
	before := bytes.TrimRight(doc[:end], " \t\r\n")
	sep := ",\n"
	if len(top) == 0 {
		sep = "\n"
	}
	return slices.Concat(before, []byte(sep+`  "pi": `), pi, []byte("\n"), doc[end:]), nil
}

func has(m map[string]json.RawMessage, k string) bool { _, ok := m[k]; return ok }

// valueSpan is where the value of the top-level key of the JSON object
// doc starts and ends.
func valueSpan(doc []byte, key string) (int, int, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil { // {
		return 0, 0, err
	}
	start, end := -1, -1
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		at := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, err
		}
		if k != key {
			continue
		}
		if start >= 0 {
			return 0, 0, &Error{Msg: fmt.Sprintf("package.json has the key %q twice", key), Hint: "keep one of them"}
		}
		end = int(dec.InputOffset())
		start = at + bytes.Index(doc[at:end], v[:1])
	}
	if start < 0 {
		return 0, 0, fmt.Errorf("package.json: no %q key", key)
	}
	return start, end, nil
}

var notNameChar = regexp.MustCompile(`[^a-z0-9._-]+`)

// packageName is an npm package name made of the directory's name.
func packageName(dir string) string {
	n := strings.Trim(notNameChar.ReplaceAllString(strings.ToLower(filepath.Base(dir)), "-"), "-._")
	if n == "" {
		n = "recipe"
	}
	return n
}

// agentYAML is one agent's file.
func agentYAML(name, mode string, servers map[string][]string) ([]byte, error) {
	a := agentFile{MCP: agentMCP{Mode: mode, Servers: map[string]agentServer{}}}
	for id, tools := range servers {
		a.MCP.Servers[id] = agentServer{Include: tools}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(a); err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# Agent %s: what it may use of the package boundary (package.json's pi.mcp).\n"+
		"# Add a server's tools under servers, as include: [TOOL, ...]; `mcp check --agent %s` shows the result.\n", name, name)
	return append([]byte(head), b.Bytes()...), nil
}

// gitignore is the recipe's .gitignore with the local binding in it, and
// false when it is there already.
func gitignore(dir string) ([]byte, bool) {
	old, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	entry := filepath.ToSlash(localBinding)
	for _, line := range strings.Split(string(old), "\n") {
		if l := strings.TrimSpace(line); l == entry || l == "/"+entry || l == ".pi/" || l == ".pi" || l == "/.pi/" {
			return nil, false
		}
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	return append(old, []byte("# this machine's binding of the recipe's servers: credentials, local paths\n"+entry+"\n")...), true
}

// indentJSON is v as indented JSON, without HTML escapes, ending in a new line.
func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
