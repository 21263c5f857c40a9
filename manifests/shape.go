package manifests

import (
	"fmt"
	"path/filepath"
	"strings"
)

// shaper builds an entry of our own shape (endpointKeys) from an entry of
// another program's file, keeping where each value was written and, for a
// renamed key, the name it was written with.
type shaper struct {
	c     *checker
	field string
	in    map[string]*member
	out   *node
}

// newShaper reads the entry n; known are the keys the program gives a
// meaning (others are ignored, and a repeated known key is a problem). ok
// is false, with the problem recorded, when n is not an object.
func newShaper(c *checker, field string, n *node, known []string) (*shaper, bool) {
	f, ok := c.fields(n, field, known, false)
	if !ok {
		return nil, false
	}
	return &shaper{c: c, field: field, in: f, out: &node{kind: kObject, line: n.line, col: n.col}}, true
}

// copy carries the member key over as to.
func (s *shaper) copy(key, to string) {
	m := s.in[key]
	if m == nil {
		return
	}
	out := *m
	out.key, out.as = to, ""
	if to != key {
		out.as = key
	}
	s.out.members = append(s.out.members, out)
}

// copyAll carries the members keys over as they are.
func (s *shaper) copyAll(keys ...string) {
	for _, k := range keys {
		s.copy(k, k)
	}
}

// put adds the value val under key, as written by the member at (a
// transport type that the key of a url implies).
func (s *shaper) put(key string, at *member, as string, val *node) {
	s.out.members = append(s.out.members, member{key: key, line: at.line, col: at.col, val: val, as: as})
}

// has says whether the entry wrote key.
func (s *shaper) has(key string) bool { return s.in[key] != nil }

// flag reads the boolean key (enabled, disabled): present is false when
// the entry does not write it, and anything but true or false is a problem.
func (s *shaper) flag(key string) (val, present bool) {
	m := s.in[key]
	if m == nil {
		return false, false
	}
	v, ok := s.c.boolean(m.val, s.field+"."+key)
	return v, ok
}

// problem records a problem with the member key.
func (s *shaper) problem(key, msg, hint string) {
	s.c.at(s.in[key].val, s.field+"."+key, "", msg, hint)
}

// textAt is a string value written where n was.
func textAt(n *node, s string) *node {
	return &node{kind: kString, text: s, line: n.line, col: n.col}
}

// varsFunc turns a program's way of naming variables in a value into
// ours (${VAR}), or says why the value cannot be used (never echoing it).
type varsFunc func(s string) (out, problem string)

// vars rewrites every string value of the entry built so far (command,
// args, env and header values, cwd, url) with tr.
func (s *shaper) vars(tr varsFunc) {
	if tr == nil {
		return
	}
	for i := range s.out.members {
		m := &s.out.members[i]
		m.val = s.translate(m.val, s.field+"."+m.name(), tr)
	}
}

func (s *shaper) translate(n *node, field string, tr varsFunc) *node {
	switch n.kind {
	case kString:
		out, problem := tr(n.text)
		if problem != "" {
			s.c.at(n, field, "", problem, "write the value itself, or ${NAME} for an environment variable")
			return n
		}
		return textAt(n, out)
	case kList:
		c := *n
		c.items = make([]*node, len(n.items))
		for i, it := range n.items {
			c.items[i] = s.translate(it, fmt.Sprintf("%s[%d]", field, i), tr)
		}
		return &c
	case kObject:
		c := *n
		c.members = make([]member, len(n.members))
		for i, m := range n.members {
			m.val = s.translate(m.val, field+"."+m.key, tr)
			c.members[i] = m
		}
		return &c
	}
	return n
}

// editorVars reads the variables of VS Code, Cursor and Windsurf:
// ${env:NAME} is the environment variable, ${workspaceFolder} the
// working directory (the folder the editor would have open),
// ${workspaceFolderBasename} its name, ${userHome} the home directory,
// ${pathSeparator} and ${/} the separator. ${input:ID} is a value the
// editor asks for, which mcp cannot, and another ${KIND:...} is a
// variable of the editor's own; an entry holding either is skipped. A
// plain ${NAME} or ${NAME:-default} is ours.
func editorVars(cwd, home string) varsFunc {
	return func(s string) (string, string) {
		var b strings.Builder
		for {
			i := strings.Index(s, "${")
			j := strings.IndexByte(s[max(i, 0):], '}')
			if i < 0 || j < 0 {
				b.WriteString(s)
				return b.String(), ""
			}
			name := s[i+2 : i+j]
			b.WriteString(s[:i])
			kind, _, prefixed := strings.Cut(name, ":")
			switch {
			case name == "workspaceFolder":
				b.WriteString(cwd)
			case name == "workspaceFolderBasename":
				b.WriteString(filepath.Base(cwd))
			case name == "userHome":
				b.WriteString(home)
			case name == "pathSeparator" || name == "/":
				b.WriteRune(filepath.Separator)
			case prefixed && kind == "env":
				b.WriteString("${" + name[len("env:"):] + "}")
			case prefixed && kind == "input":
				return "", "uses ${input:...}, a value the editor asks for when it starts the server, and mcp cannot ask"
			case prefixed && !strings.HasPrefix(name[len(kind):], ":-") && validVarName(kind):
				return "", fmt.Sprintf("uses ${%s:...}, a variable of the editor that mcp does not resolve", kind)
			default:
				b.WriteString(s[i : i+j+1])
			}
			s = s[i+j+1:]
		}
	}
}

// geminiVars reads Gemini CLI's variables: $NAME and ${NAME} are the
// environment variable.
func geminiVars(s string) (string, string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) || !isVarStart(s[i+1]) {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && isVarChar(s[j]) {
			j++
		}
		b.WriteString("${" + s[i+1:j] + "}")
		i = j - 1
	}
	return b.String(), ""
}

// opencodeVars reads OpenCode's substitutions: {env:NAME} is the
// environment variable; {file:PATH}, a file's content, is not read.
func opencodeVars(s string) (string, string) {
	if strings.Contains(s, "{file:") {
		return "", "uses {file:...}, a file's content, which mcp does not read"
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "{env:")
		j := strings.IndexByte(s[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		b.WriteString(s[:i] + "${" + s[i+len("{env:"):i+j] + "}")
		s = s[i+j+1:]
	}
}

func isVarStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isVarChar(c byte) bool { return isVarStart(c) || '0' <= c && c <= '9' }
