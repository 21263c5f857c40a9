package manifests

import (
	"bytes"
	"encoding/json"
	"strings"
)

// keepMode says what parseJSONOnly does with an object member.
type keepMode int

const (
	dropIt  keepMode = iota // scan past it
	descend                 // keep it, and ask again for its members when it is an object
	whole                   // keep it and all it holds
)

// parseJSONOnly parses the JSON object data into a tree of only what keep
// asks for: keep is called with the keys from the top down to each member
// of the objects it descends into. What is kept is parsed as parseJSON
// does (positions those of the file); what is dropped is only scanned for
// where it ends, fast and without memory, and is not otherwise checked: a
// large file (Claude Code's, with its history) costs little more than
// reading it.
func parseJSONOnly(data []byte, file string, keep func(path []string) keepMode) (*node, error) {
	p := newJSONParser(data, file)
	i := skipSpace(data, 0)
	if i == len(data) {
		return nil, &Error{Pos: Pos{File: file}, Msg: "file is empty", Hint: "expected a JSON object"}
	}
	if data[i] != '{' {
		return nil, p.errAt(i, "invalid JSON: expected an object")
	}
	n, end, err := p.filtered(i, nil, keep)
	if err != nil {
		return nil, err
	}
	if end = skipSpace(data, end); end != len(data) {
		return nil, p.errAt(end, "invalid JSON: unexpected data after the top-level value")
	}
	return n, nil
}

// filtered reads the object at data[i] (a '{'), the value at path.
func (p *jsonParser) filtered(i int, path []string, keep func([]string) keepMode) (*node, int, error) {
	line, col := p.lineCol(i)
	n := &node{kind: kObject, line: line, col: col}
	data := p.data
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return n, i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, 0, p.errAt(i, "invalid JSON: expected a string key")
		}
		keyEnd, err := p.skipString(i)
		if err != nil {
			return nil, 0, err
		}
		var key string
		if json.Unmarshal(data[i:keyEnd], &key) != nil {
			return nil, 0, p.errAt(i, "invalid JSON: invalid string key")
		}
		kl, kc := p.lineCol(i)
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return nil, 0, p.errAt(i, "invalid JSON: expected ':' after an object key")
		}
		vs := skipSpace(data, i+1)
		at := append(path[:len(path):len(path)], key)
		var v *node
		switch mode := keep(at); {
		case mode == descend && vs < len(data) && data[vs] == '{':
			v, i, err = p.filtered(vs, at, keep)
		case mode == dropIt || mode == descend:
			i, err = p.skipValue(vs)
		default:
			if i, err = p.skipValue(vs); err == nil {
				v, err = p.valueAt(vs, i, len(at))
			}
		}
		if err != nil {
			return nil, 0, err
		}
		if v != nil {
			n.members = append(n.members, member{key: key, line: kl, col: kc, val: v})
		}
		i = skipSpace(data, i)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == '}':
			return n, i + 1, nil
		default:
			return nil, 0, p.errAt(i, "invalid JSON: expected ',' or '}' after an object member")
		}
	}
}

// skipValue returns where the value at data[i] ends: a string, an object or
// list (brackets counted, strings passed over), or a literal.
func (p *jsonParser) skipValue(i int) (int, error) {
	data := p.data
	if i >= len(data) {
		return 0, p.errAt(i, "invalid JSON: unexpected end of file")
	}
	switch data[i] {
	case '"':
		return p.skipString(i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := p.skipString(j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, p.errAt(len(data), "invalid JSON: unexpected end of file")
	}
	j := i
	for j < len(data) && strings.IndexByte(" \t\r\n,:[]{}\"", data[j]) < 0 {
		j++
	}
	if j == i {
		return 0, p.errAt(i, "invalid JSON: expected a value")
	}
	return j, nil
}

// skipString returns where the string that opens at data[i] ends.
func (p *jsonParser) skipString(i int) (int, error) {
	data := p.data
	for j := i + 1; j < len(data); {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			break
		}
		j += k
		escapes := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1, nil
		}
		j++
	}
	return 0, p.errAt(len(data), "invalid JSON: unexpected end of file in a string")
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}
