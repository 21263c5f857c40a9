package manifests

import (
	"fmt"
	"path/filepath"
	"slices"
)

// The programs whose MCP configuration LoadUser imports, and how each
// writes its servers. Every one of them is read leniently: keys a program
// adds are ignored, an entry it has switched off is left out, and an entry
// mcp cannot use is skipped with a warning that says why.
var (
	// Claude Desktop, Claude Code's .mcp.json: our own shape, under mcpServers.
	claudeDesktop = &client{name: "Claude Desktop", open: underKey("mcpServers", nil)}
	claudeCode    = &client{name: "Claude Code", open: underKey("mcpServers", nil)}
	// Cursor: our shape, with the editor's ${env:NAME}-style variables.
	cursor = &client{name: "Cursor", open: underKey("mcpServers", editorShape)}
	// VS Code: servers with a type (stdio, http, sse), and ${input:...}.
	vscode = &client{name: "VS Code", open: underKey("servers", vscodeShape)}
	// Windsurf: a remote server's URL is serverUrl (or url).
	windsurf = &client{name: "Windsurf", open: underKey("mcpServers", windsurfShape)}
	// Gemini CLI: url is SSE, httpUrl streamable HTTP.
	gemini = &client{name: "Gemini CLI", open: geminiOpen}
	// Zed: context_servers, custom (command) or remote (url) ones.
	zed = &client{name: "Zed", open: underKey("context_servers", zedShape)}
	// OpenCode: mcp, with local (command list) and remote servers.
	opencode = &client{name: "OpenCode", open: opencodeOpen}
	// Codex: TOML, [mcp_servers.NAME].
	codex = &client{name: "Codex", toml: true, open: underKey("mcp_servers", codexShape)}
	// Claude Code's ~/.claude.json: servers for every project (user scope)
	// under mcpServers, and for one project (local scope) under
	// projects[DIR].mcpServers. The file also keeps Claude Code's state
	// and, in older versions, prompt history, so it is allowed to be large
	// and only those two places are parsed.
	claudeUser  = &client{name: "Claude Code", limit: claudeLimit, keep: claudeKeep, open: underKey("mcpServers", nil)}
	claudeLocal = &client{name: "Claude Code", limit: claudeLimit, keep: claudeKeep, open: claudeProjectOpen}
)

// claudeLimit bounds ~/.claude.json.
var claudeLimit = sizeLimit{bytes: 64 << 20, label: "64 MiB",
	hint: "older versions of Claude Code kept prompt history in this file; clearing old projects' history shrinks it"}

// editorShape reads entries of our own shape whose values hold an
// editor's variables (see editorVars).
func editorShape(x *importCtx) shapeFunc {
	tr := editorVars(x.cwd, x.home)
	return func(c *checker, _, field string, n *node) (*node, bool) {
		s, ok := newShaper(c, field, n, append(endpointKeys[:len(endpointKeys):len(endpointKeys)], "disabled"))
		if !ok {
			return n, true
		}
		if off, _ := s.flag("disabled"); off {
			return nil, false
		}
		s.copyAll(endpointKeys...)
		s.vars(tr)
		return s.out, true
	}
}

// vscodeShape reads VS Code's entries: our keys, ${input:...} and the
// editor's other variables, and envFile, which mcp does not read.
func vscodeShape(x *importCtx) shapeFunc {
	tr := editorVars(x.cwd, x.home)
	return func(c *checker, _, field string, n *node) (*node, bool) {
		s, ok := newShaper(c, field, n, append(endpointKeys[:len(endpointKeys):len(endpointKeys)], "disabled", "envFile"))
		if !ok {
			return n, true
		}
		if off, _ := s.flag("disabled"); off {
			return nil, false
		}
		if s.has("envFile") {
			s.problem("envFile", "names a file of variables, which mcp does not read", "put the variables in env")
		}
		s.copyAll(endpointKeys...)
		s.vars(tr)
		return s.out, true
	}
}

// windsurfShape reads Windsurf's entries: a command, or a serverUrl (or
// url) whose transport is found out when connecting.
func windsurfShape(x *importCtx) shapeFunc {
	tr := editorVars(x.cwd, x.home)
	return func(c *checker, _, field string, n *node) (*node, bool) {
		s, ok := newShaper(c, field, n, []string{"command", "args", "env", "cwd", "serverUrl", "url", "headers", "disabled"})
		if !ok {
			return n, true
		}
		if off, _ := s.flag("disabled"); off {
			return nil, false
		}
		s.copyAll("command", "args", "env", "cwd", "headers")
		if s.has("serverUrl") {
			s.copy("serverUrl", "url")
		} else {
			s.copy("url", "url")
		}
		s.vars(tr)
		return s.out, true
	}
}

// geminiOpen reads Gemini CLI's settings: mcpServers, less the servers
// that its mcp.excluded names or, when it has one, mcp.allowed does not.
func geminiOpen(top *node, file string, _ *importCtx) (*node, string, shapeFunc, error) {
	m, err := serversAt(top, file, "mcpServers")
	if m == nil || err != nil {
		return m, "mcpServers", nil, err
	}
	allowed, hasAllowed := nameSet(top, "mcp", "allowed")
	excluded, _ := nameSet(top, "mcp", "excluded")
	shape := func(c *checker, id, field string, n *node) (*node, bool) {
		if excluded[id] || hasAllowed && !allowed[id] {
			return nil, false
		}
		return geminiEntry(c, field, n)
	}
	return m, "mcpServers", shape, nil
}

// geminiEntry reads one of Gemini CLI's entries: command; httpUrl,
// streamable HTTP; url, SSE unless type says "http". Values may name
// variables as $NAME or ${NAME}. timeout, trust and the tool lists are
// Gemini's own and are ignored.
func geminiEntry(c *checker, field string, n *node) (*node, bool) {
	s, ok := newShaper(c, field, n, []string{"command", "args", "env", "cwd", "url", "httpUrl", "type", "headers"})
	if !ok {
		return n, true
	}
	s.copyAll("command", "args", "env", "cwd", "headers")
	switch {
	case s.has("httpUrl"):
		s.copy("httpUrl", "url")
		s.put("type", s.in["httpUrl"], "httpUrl", textAt(s.in["httpUrl"].val, "http"))
	case s.has("url"):
		s.copy("url", "url")
		if s.has("type") {
			s.copy("type", "type")
		} else {
			s.put("type", s.in["url"], "url", textAt(s.in["url"].val, "sse"))
		}
	}
	s.vars(geminiVars)
	return s.out, true
}

// nameSet reads a list of names at the path of keys under top; ok is
// false when there is none.
func nameSet(top *node, path ...string) (set map[string]bool, ok bool) {
	n := top
	for _, k := range path {
		n = memberVal(n, k)
		if n == nil {
			return nil, false
		}
	}
	if n.kind != kList {
		return nil, false
	}
	set = map[string]bool{}
	for _, it := range n.items {
		if it.kind == kString {
			set[it.text] = true
		}
	}
	return set, true
}

// memberVal is the value of the last member key of the object n, or nil.
func memberVal(n *node, key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	var v *node
	for i := range n.members {
		if n.members[i].key == key {
			v = n.members[i].val
		}
	}
	return v
}

// zedShape reads Zed's context_servers: "enabled": false is off; a custom
// server has command (a string, with args and env beside it, or in older
// settings an object of path, args and env), a remote one url and
// headers. A server that a Zed extension provides ("source": "extension",
// or only settings) has no command mcp could run.
func zedShape(*importCtx) shapeFunc {
	return func(c *checker, _, field string, n *node) (*node, bool) {
		s, ok := newShaper(c, field, n, []string{"source", "enabled", "command", "args", "env", "url", "headers", "settings"})
		if !ok {
			return n, true
		}
		if on, set := s.flag("enabled"); set && !on {
			return nil, false
		}
		extension := "is provided by a Zed extension, which mcp cannot start"
		if src := s.in["source"]; src != nil && !(src.val.kind == kString && src.val.text == "custom") {
			if src.val.kind == kString && src.val.text == "extension" {
				s.problem("source", extension, "write a custom server with command, args and env")
			} else {
				s.problem("source", `is not "custom" or "extension"`, "")
			}
			return s.out, true
		}
		if cmd := s.in["command"]; cmd != nil && cmd.val.kind == kObject {
			sub, ok := newShaper(c, field+".command", cmd.val, []string{"path", "args", "env"})
			if ok {
				for _, k := range [][2]string{{"path", "command"}, {"args", "args"}, {"env", "env"}} {
					sub.copy(k[0], k[1])
				}
				for _, m := range sub.out.members {
					m.as = "command." + m.name()
					s.out.members = append(s.out.members, m)
				}
			}
		} else {
			s.copyAll("command", "args", "env")
		}
		s.copyAll("url", "headers")
		if !s.has("command") && !s.has("url") && s.has("settings") {
			s.problem("settings", extension, "write a custom server with command, args and env")
		}
		return s.out, true
	}
}

// opencodeOpen reads OpenCode's servers: the object under mcp (or under
// mcp.servers, when that is an object of servers).
func opencodeOpen(top *node, file string, _ *importCtx) (*node, string, shapeFunc, error) {
	m, err := serversAt(top, file, "mcp")
	if m == nil || err != nil {
		return m, "mcp", nil, err
	}
	if inner := memberVal(m, "servers"); inner != nil && inner.kind == kObject &&
		memberVal(inner, "type") == nil && memberVal(inner, "command") == nil && memberVal(inner, "url") == nil {
		return inner, "mcp.servers", opencodeEntry, nil
	}
	return m, "mcp", opencodeEntry, nil
}

// opencodeEntry reads one of OpenCode's entries: "type": "local" with
// command a list (the program, then its arguments) and environment, or
// "type": "remote" with url and headers; "enabled": false is off. Values
// may name variables as {env:NAME}.
func opencodeEntry(c *checker, _, field string, n *node) (*node, bool) {
	s, ok := newShaper(c, field, n, []string{"type", "command", "environment", "url", "headers", "enabled"})
	if !ok {
		return n, true
	}
	if on, set := s.flag("enabled"); set && !on {
		return nil, false
	}
	if t := s.in["type"]; t != nil && !(t.val.kind == kString && (t.val.text == "local" || t.val.text == "remote")) {
		s.problem("type", `is not "local" or "remote"`, "")
	}
	if cmd := s.in["command"]; cmd != nil && cmd.val.kind == kList {
		if len(cmd.val.items) == 0 {
			s.problem("command", "is empty", "name the program to run, then its arguments")
			return s.out, true
		}
		s.put("command", cmd, "command[0]", cmd.val.items[0])
		args := &node{kind: kList, line: cmd.val.line, col: cmd.val.col, items: cmd.val.items[1:]}
		s.put("args", cmd, "command", args)
	} else {
		s.copy("command", "command")
	}
	s.copy("environment", "env")
	s.copyAll("url", "headers")
	s.vars(opencodeVars)
	return s.out, true
}

// claudeKeep keeps what ~/.claude.json says of servers: mcpServers, and
// mcpServers of the working directory's project.
func claudeKeep(x *importCtx) func(path []string) keepMode {
	dirs := claudeProjectKeys(x.cwd)
	return func(path []string) keepMode {
		switch {
		case len(path) == 1 && path[0] == "mcpServers":
			return whole
		case path[0] != "projects":
			return dropIt
		case len(path) == 1:
			return descend
		case !slices.Contains(dirs, path[1]):
			return dropIt
		case len(path) == 2:
			return descend
		case path[2] == "mcpServers":
			return whole
		}
		return dropIt
	}
}

// claudeProjectOpen finds the working directory's servers in
// ~/.claude.json: projects[DIR].mcpServers, DIR the absolute working
// directory as Claude Code records it.
func claudeProjectOpen(top *node, file string, x *importCtx) (*node, string, shapeFunc, error) {
	projects := memberVal(top, "projects")
	for _, dir := range claudeProjectKeys(x.cwd) {
		p := memberVal(projects, dir)
		if p == nil {
			continue
		}
		field := fmt.Sprintf("projects[%q]", dir)
		m := memberVal(p, "mcpServers")
		if m == nil || m.kind == kNull {
			return nil, field, nil, nil
		}
		if m.kind != kObject {
			c := &checker{file: file}
			c.wrongType(m, field+".mcpServers", "an object of servers by id")
			return nil, field, nil, c.errs
		}
		return m, field + ".mcpServers", nil, nil
	}
	return nil, "", nil, nil
}

// claudeProjectKeys are the names a project directory may have in
// ~/.claude.json: the working directory as given, with forward slashes,
// and with symlinks resolved (Claude Code records the real path).
func claudeProjectKeys(cwd string) []string {
	if cwd == "" {
		return nil
	}
	keys := []string{cwd}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		keys = append(keys, real)
	}
	for _, k := range keys[:len(keys):len(keys)] {
		keys = append(keys, filepath.ToSlash(k))
	}
	var out []string
	for _, k := range keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
