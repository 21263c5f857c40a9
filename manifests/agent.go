package manifests

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
)

var (
	agentKeys       = []string{"extends", "tools", "mcp"}
	agentServerKeys = []string{"include", "exclude", "defer", "eager"}
)

// parseAgent parses one agent file: YAML, or, when file ends in ".md",
// Markdown whose YAML front matter sits between two "---" lines at the very
// top (LF or CRLF). A Markdown file without front matter is an agent without
// an mcp block; a front matter that is never closed is an error.
//
// Only extends, tools and mcp are read; other top-level keys (name,
// description, model, prompt, ...) belong to other programs and are ignored.
// Inside mcp every key is checked: a typo must not change policy. name is
// the agent's name (its file name without extension). Problems come back as
// Errors.
func parseAgent(data []byte, file, name string) (*Agent, error) {
	a := &Agent{Name: name, File: file, Pos: Pos{File: file}}
	lineOff := 0
	if filepath.Ext(file) == ".md" {
		body, found, err := frontMatter(data, file)
		if err != nil {
			return nil, err
		}
		if !found {
			return a, nil
		}
		data, lineOff = body, 1
	}
	top, err := parseYAML(data, file, lineOff)
	if err != nil {
		return nil, err
	}
	if top.kind == kNull {
		return a, nil
	}
	c := &checker{file: file, yaml: true}
	f, ok := c.fields(top, "", agentKeys, false)
	if !ok {
		return nil, c.errs
	}
	c.mergeKeys(top)
	if m := f["extends"]; m != nil {
		a.Pos = m.pos(file)
		if s, ok := c.str(m.val, "extends"); ok {
			if s == "" {
				c.at(m.val, "extends", "", "is empty", "name the parent agent, or leave extends out")
			}
			a.Extends = s
		}
	}
	if m := f["tools"]; m != nil {
		tools, pos, _ := c.strList(m.val, "tools")
		for i, t := range tools {
			if t == "" {
				c.add(pos[i], fmt.Sprintf("tools[%d]", i), "", "is empty", "name a tool")
			}
		}
		a.Tools = tools
	}
	if m := f["mcp"]; m != nil {
		a.MCP = c.agentMCP(m)
	}
	if len(c.errs) > 0 {
		c.errs.sortStable()
		return nil, c.errs
	}
	return a, nil
}

// mergeKeys reports a top-level YAML merge key ("<<: *base") that would
// bring in extends, tools or mcp: merges are not applied, and policy must
// not be dropped without a word.
func (c *checker) mergeKeys(top *node) {
	for i := range top.members {
		m := &top.members[i]
		if m.key != "<<" {
			continue
		}
		maps := []*node{m.val}
		if m.val.kind == kList {
			maps = m.val.items
		}
		for _, mv := range maps {
			for _, k := range mv.members {
				if slices.Contains(agentKeys, k.key) {
					c.add(m.pos(c.file), "", k.key, "comes from a merge key (<<), which is not supported here",
						"write "+k.key+" out in the agent file")
				}
			}
		}
	}
}

// agentMCP reads a declared mcp block. A null block (mcp: with nothing
// after it) is declared and empty: it grants no server.
func (c *checker) agentMCP(m *member) *AgentMCP {
	out := &AgentMCP{Pos: m.pos(c.file)}
	if m.val.kind == kNull {
		return out
	}
	f, ok := c.fields(m.val, "mcp", []string{"mode", "servers"}, true)
	if !ok {
		return out
	}
	if mm := f["mode"]; mm != nil {
		if s, ok := c.str(mm.val, "mcp.mode"); ok {
			out.ModePos = mm.val.pos(c.file)
			if s != "cli" && s != "tools" {
				c.at(mm.val, "mcp.mode", s, "is not a mode", `mode is "cli" or "tools"`)
			}
			out.Mode = s
		}
	}
	sm := f["servers"]
	if sm == nil || sm.val.kind == kNull {
		return out
	}
	if sm.val.kind != kObject {
		c.at(sm.val, "mcp.servers", "", "must be a mapping of server ids, not "+c.kindName(sm.val.kind),
			"write servers: then one key per server id, holding include: [...]")
		return out
	}
	if c.tooMany(sm.val, "mcp.servers", len(sm.val.members)) {
		return out
	}
	seen := map[string]Pos{}
	for i := range sm.val.members {
		em := &sm.val.members[i]
		if !c.serverID(em.key, em.pos(c.file), "mcp.servers", seen) {
			continue
		}
		out.Servers = append(out.Servers, c.agentServer(em))
	}
	return out
}

// agentServer reads one server of an mcp block. A server with nothing
// under it grants no tool.
func (c *checker) agentServer(em *member) AgentServer {
	s := AgentServer{ID: em.key, Pos: em.pos(c.file)}
	field := "mcp.servers." + em.key
	if em.val.kind == kNull {
		return s
	}
	f, ok := c.fields(em.val, field, agentServerKeys, true)
	if !ok {
		return s
	}
	if m := f["include"]; m != nil {
		s.Include, s.IncludePos = c.toolList(m.val, field+".include", "include", true)
	}
	if m := f["exclude"]; m != nil {
		s.Exclude, s.ExcludePos = c.toolList(m.val, field+".exclude", "exclude", false)
	}
	if m := f["defer"]; m != nil {
		s.Defer, s.DeferPos = c.toolList(m.val, field+".defer", "defer", true)
	}
	if m := f["eager"]; m != nil {
		s.Eager, s.EagerPos = c.toolList(m.val, field+".eager", "eager", false)
	}
	return s
}

// frontMatter returns the YAML between an opening "---" line (the file's
// first line) and the next "---" line. found is false when the file does not
// start with "---". Lines may end in CRLF and carry trailing blanks.
func frontMatter(data []byte, file string) (body []byte, found bool, err error) {
	line, rest, more := bytes.Cut(data, []byte("\n"))
	if !isFence(line) {
		return nil, false, nil
	}
	start := len(line) + 1
	off := start
	for more {
		line, rest, more = bytes.Cut(rest, []byte("\n"))
		if isFence(line) {
			return data[start:off], true, nil
		}
		off += len(line) + 1
	}
	return nil, false, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "front matter is not closed",
		Hint: `end the YAML front matter with a line holding only "---"`}
}

func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}
