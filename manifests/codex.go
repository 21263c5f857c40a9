package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlQuoteRE and tomlRangeRE find what a parse error quotes of the file:
// text that could be a secret written without quotes.
var (
	tomlQuoteRE = regexp.MustCompile(`"[^"]{4,}"|'[^']{4,}'`)
	tomlRangeRE = regexp.MustCompile(`^\S+ (is out of)`)
)

// tomlMessage is a parse error's message without what it quotes of
// values; single characters, delimiters and key names stay.
func tomlMessage(msg string) string {
	var b strings.Builder
	last := 0
	for _, m := range tomlQuoteRE.FindAllStringIndex(msg, -1) {
		if strings.HasSuffix(msg[:m[0]], "Key ") {
			continue
		}
		b.WriteString(msg[last:m[0]] + "(not shown)")
		last = m[1]
	}
	b.WriteString(msg[last:])
	return tomlRangeRE.ReplaceAllString(b.String(), "a number $1")
}

// maxTOMLOpeners bounds the "[" and "{" of a TOML file (counted wherever
// they are, strings too), and so its nesting.
const maxTOMLOpeners = 10_000

// parseTOML parses a TOML document into a node tree, its keys in file
// order. TOML values carry no positions here (the library keeps none), so
// problems name the file and the field.
func parseTOML(data []byte, file string) (n *node, err error) {
	defer func() {
		// A bad file must be an error, never a crash.
		if r := recover(); r != nil {
			n, err = nil, &Error{Pos: Pos{File: file}, Msg: fmt.Sprintf("invalid TOML: %v", r)}
		}
	}()
	// The library recurses once per nested array or inline table, and a
	// file deep enough overflows the stack (fatal, not a panic). No more
	// openers than maxTOMLOpeners means no deeper than that.
	if n := bytes.Count(data, []byte("[")) + bytes.Count(data, []byte("{")); n > maxTOMLOpeners {
		return nil, &Error{Pos: Pos{File: file}, Msg: fmt.Sprintf("has %d arrays and tables, over the limit of %d", n, maxTOMLOpeners),
			Hint: "a configuration file this large is not one a program wrote"}
	}
	var v map[string]any
	md, err := toml.Decode(string(data), &v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := tomlMessage(pe.Message)
			return nil, &Error{Pos: Pos{File: file, Line: pe.Position.Line, Col: pe.Position.Col}, Msg: "invalid TOML: " + msg}
		}
		return nil, &Error{Pos: Pos{File: file}, Msg: "invalid TOML: " + err.Error()}
	}
	t := tomlTree{file: file, order: map[string]int{}}
	for i, k := range md.Keys() {
		t.order[strings.Join(k, "\x00")] = i
	}
	return t.conv(v, nil)
}

type tomlTree struct {
	file  string
	order map[string]int // key path -> place in the file
}

func (t *tomlTree) conv(v any, path []string) (*node, error) {
	if len(path) > maxDepth {
		return nil, &Error{Pos: Pos{File: t.file}, Msg: fmt.Sprintf("values are nested more than %d deep", maxDepth)}
	}
	switch v := v.(type) {
	case map[string]any:
		n := &node{kind: kObject}
		for k, val := range v {
			c, err := t.conv(val, append(path[:len(path):len(path)], k))
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: k, val: c})
		}
		at := func(k string) int { return t.order[strings.Join(append(path[:len(path):len(path)], k), "\x00")] }
		slices.SortFunc(n.members, func(a, b member) int {
			if d := at(a.key) - at(b.key); d != 0 {
				return d
			}
			return strings.Compare(a.key, b.key)
		})
		return n, nil
	case []map[string]any:
		items := make([]any, len(v))
		for i := range v {
			items[i] = v[i]
		}
		return t.conv(items, path)
	case []any:
		n := &node{kind: kList}
		for i, it := range v {
			c, err := t.conv(it, append(path[:len(path):len(path)], strconv.Itoa(i)))
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, c)
		}
		return n, nil
	case string:
		return &node{kind: kString, text: v}, nil
	case bool:
		return &node{kind: kBool, text: strconv.FormatBool(v)}, nil
	case int64:
		return &node{kind: kNumber, text: strconv.FormatInt(v, 10)}, nil
	case float64:
		return &node{kind: kNumber, text: strconv.FormatFloat(v, 'g', -1, 64)}, nil
	}
	// Dates and times: nothing of a server is one.
	return &node{kind: kString, text: fmt.Sprint(v)}, nil
}

// codexShape reads Codex's [mcp_servers.NAME] tables: command, args, env
// and cwd; or url, always streamable HTTP, with headers from
// http_headers, env_http_headers (a header's value is the named
// environment variable) and bearer_token_env_var (Authorization: Bearer
// and the variable), and env_vars, the host variables passed on as they
// are (passEnv). "enabled = false" is off. Values are taken as written;
// the timeouts and tool lists are Codex's own and are ignored.
func codexShape(*importCtx) shapeFunc {
	return func(c *checker, _, field string, n *node) (*node, bool) {
		s, ok := newShaper(c, field, n, []string{"command", "args", "env", "cwd", "url", "enabled",
			"http_headers", "env_http_headers", "bearer_token_env_var", "env_vars"})
		if !ok {
			return n, true
		}
		if on, set := s.flag("enabled"); set && !on {
			return nil, false
		}
		s.copyAll("command", "args", "env", "cwd", "url")
		s.copy("env_vars", "passEnv")
		if u := s.in["url"]; u != nil {
			s.put("type", u, "url", textAt(u.val, "http"))
		}
		if h := codexHeaders(s); h != nil {
			s.put("headers", h.at, h.as, h.val)
		}
		return s.out, true
	}
}

type codexHeaderSet struct {
	at  *member
	as  string
	val *node
}

// codexHeaders joins the three ways Codex writes headers into one object;
// a header set by an environment variable replaces a fixed one of the same
// name (names are not case sensitive). nil when there are none.
func codexHeaders(s *shaper) *codexHeaderSet {
	var out *codexHeaderSet
	add := func(from *member, name string, val *node) {
		if out == nil {
			out = &codexHeaderSet{at: from, as: from.key, val: &node{kind: kObject, line: from.line, col: from.col}}
		}
		ms := slices.DeleteFunc(out.val.members, func(m member) bool { return strings.EqualFold(m.key, name) })
		out.val.members = append(ms, member{key: name, line: from.line, col: from.col, val: val})
	}
	if m := s.in["http_headers"]; m != nil {
		if m.val.kind != kObject {
			s.c.wrongType(m.val, s.field+".http_headers", "a table of header values")
		} else {
			for _, h := range m.val.members {
				add(m, h.key, h.val)
			}
		}
	}
	if m := s.in["env_http_headers"]; m != nil {
		if m.val.kind != kObject {
			s.c.wrongType(m.val, s.field+".env_http_headers", "a table of variable names")
		} else {
			for _, h := range m.val.members {
				if name, ok := codexVarName(s, h.val, s.field+".env_http_headers."+h.key); ok {
					add(m, h.key, textAt(h.val, "${"+name+"}"))
				}
			}
		}
	}
	if m := s.in["bearer_token_env_var"]; m != nil {
		if name, ok := codexVarName(s, m.val, s.field+".bearer_token_env_var"); ok {
			add(m, "Authorization", textAt(m.val, "Bearer ${"+name+"}"))
		}
	}
	return out
}

// codexVarName reads the name of an environment variable.
func codexVarName(s *shaper, n *node, field string) (string, bool) {
	name, ok := s.c.str(n, field)
	if ok && !validVarName(name) {
		s.c.at(n, field, "", "is not an environment variable name", "a name is letters, digits and _, not starting with a digit")
		return "", false
	}
	return name, ok
}
