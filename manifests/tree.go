package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// node is a parsed JSON or YAML value that remembers where it was written, so
// that validation can point at the line of every key and value.
type node struct {
	kind    kind
	text    string // scalar text: the string, the number as written, true/false
	line    int
	col     int
	members []member // objects, in file order, duplicates kept
	items   []*node  // lists
}

type member struct {
	key       string
	line, col int // of the key
	val       *node
	// as is the key as a client's file wrote it, when an import renamed
	// it to key (Windsurf's serverUrl is url); messages name it.
	as string
}

// name is the key as written.
func (m *member) name() string {
	if m.as != "" {
		return m.as
	}
	return m.key
}

type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kObject
	kList
)

// pos is where n was written in file.
func (n *node) pos(file string) Pos { return Pos{File: file, Line: n.line, Col: n.col} }

func (m *member) pos(file string) Pos { return Pos{File: file, Line: m.line, Col: m.col} }

// --- JSON ---

// parseJSON parses one JSON value (the whole of data) into a node tree.
// Line and column are 1-based; columns count characters.
func parseJSON(data []byte, file string) (*node, error) {
	p := newJSONParser(data, file)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Pos: Pos{File: file}, Msg: "file is empty", Hint: "expected a JSON object"}
	}
	return p.valueAt(0, len(data), 0)
}

func newJSONParser(data []byte, file string) *jsonParser {
	p := &jsonParser{data: data, file: file}
	// Files are at most 64 MiB: an offset fits 32 bits, and the table is
	// made once, at its size.
	p.lines = make([]int32, 1, 1+bytes.Count(data, []byte("\n")))
	for i, c := range data {
		if c == '\n' {
			p.lines = append(p.lines, int32(i+1))
		}
	}
	return p
}

// valueAt parses the one JSON value that data[start:end] holds, nested
// depth deep in the file.
func (p *jsonParser) valueAt(start, end, depth int) (*node, error) {
	p.base = start
	p.dec = json.NewDecoder(bytes.NewReader(p.data[start:end]))
	p.dec.UseNumber()
	n, err := p.value(depth)
	if err != nil {
		return nil, err
	}
	at := p.next()
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.errAt(at, "invalid JSON: unexpected data after the top-level value")
	}
	return n, nil
}

type jsonParser struct {
	data  []byte
	file  string
	dec   *json.Decoder // reads data[base:]
	base  int
	lines []int32 // byte offset where each line starts

	lastOff, lastLine, lastCol int // the last lineCol answer
}

// next is the offset of the next token: the decoder's offset after the last
// token, moved past whitespace and the separators the decoder eats itself.
func (p *jsonParser) next() int {
	off := p.base + int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// lineCol turns a byte offset into a 1-based line and character column.
// Offsets mostly come in increasing order, so the count goes on from the
// last answer when it can: a long single-line file stays linear.
func (p *jsonParser) lineCol(off int) (int, int) {
	off = max(0, min(off, len(p.data)))
	i := sort.Search(len(p.lines), func(i int) bool { return int(p.lines[i]) > off }) - 1
	from, col := int(p.lines[i]), 1
	switch {
	case p.lastLine == i+1 && p.lastOff <= off:
		from, col = p.lastOff, p.lastCol
	case p.lastLine == i+1 && p.lastOff-off < off-from:
		// A key after its value: nearer the last answer than the line's start.
		col = p.lastCol - utf8.RuneCount(p.data[off:p.lastOff])
		p.lastOff, p.lastCol = off, col
		return i + 1, col
	}
	col += utf8.RuneCount(p.data[from:off])
	p.lastOff, p.lastLine, p.lastCol = off, i+1, col
	return i + 1, col
}

func (p *jsonParser) errAt(off int, msg string) *Error {
	line, col := p.lineCol(off)
	return &Error{Pos: Pos{File: p.file, Line: line, Col: col}, Msg: msg}
}

// syntaxErr turns a decoder error into an *Error at the right place.
func (p *jsonParser) syntaxErr(err error, at int) *Error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return p.errAt(p.badCharAt(p.base+int(se.Offset), se.Error()), "invalid JSON: "+se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(len(p.data), "invalid JSON: unexpected end of file")
	}
	return p.errAt(at, "invalid JSON: "+err.Error())
}

// badCharAt finds the character a syntax error names. The decoder's offset
// is only near it (before the whitespace ahead of a value, or at the start
// of a literal), so look for the named character from there on.
func (p *jsonParser) badCharAt(off int, msg string) int {
	off = max(0, min(off, len(p.data)))
	rest, ok := strings.CutPrefix(msg, "invalid character ")
	if !ok {
		return off
	}
	end := strings.Index(rest[min(1, len(rest)):], "' ")
	if end < 0 {
		return off
	}
	r, _, tail, err := strconv.UnquoteChar(rest[1:end+1], '\'')
	if err != nil || tail != "" {
		return off
	}
	if i := bytes.IndexRune(p.data[off:], r); i >= 0 {
		return off + i
	}
	return off
}

func (p *jsonParser) value(depth int) (*node, error) {
	start := p.next()
	if depth > maxDepth {
		return nil, p.errAt(start, fmt.Sprintf("values are nested more than %d deep", maxDepth))
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntaxErr(err, start)
	}
	line, col := p.lineCol(start)
	n := &node{line: line, col: col}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = kObject
			for p.dec.More() {
				ks := p.next()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.syntaxErr(err, ks)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, p.errAt(ks, "invalid JSON: object key is not a string")
				}
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				kl, kc := p.lineCol(ks)
				n.members = append(n.members, member{key: key, line: kl, col: kc, val: v})
			}
		case '[':
			n.kind = kList
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
		default:
			return nil, p.errAt(start, "invalid JSON: unexpected "+strconv.Quote(t.String()))
		}
		end := p.next()
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, p.syntaxErr(err, end)
		}
	case string:
		n.kind, n.text = kString, t
	case json.Number:
		n.kind, n.text = kNumber, t.String()
	case bool:
		n.kind, n.text = kBool, strconv.FormatBool(t)
	case nil:
		n.kind = kNull
	default:
		return nil, p.errAt(start, "invalid JSON")
	}
	return n, nil
}

// --- YAML ---

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the YAML library's parser (not scanner) messages.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// parseYAML parses the first YAML document of data. lineOff is added to every
// line (the lines before data in its file). An empty document gives a null node.
func parseYAML(data []byte, file string, lineOff int) (n *node, err error) {
	defer func() {
		// The YAML library has panicked on hostile input before; a bad file
		// must be an error, never a crash.
		if r := recover(); r != nil {
			n, err = nil, &Error{Pos: Pos{File: file}, Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return &node{kind: kNull, line: 1 + lineOff, col: 1}, nil
		}
		return nil, yamlErr(err, file, lineOff)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, yamlErr(err, file, lineOff)
		}
		return nil, &Error{Pos: Pos{File: file, Line: extra.Line + lineOff}, Msg: "more than one YAML document",
			Hint: "an agent file holds one document"}
	}
	c := yamlConv{file: file, lineOff: lineOff, budget: maxYAMLNodes}
	return c.conv(&doc, 0)
}

func yamlErr(err error, file string, lineOff int) *Error {
	msg := err.Error()
	e := &Error{Pos: Pos{File: file}}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg = m[2]
		if yamlParserProblems[msg] {
			// The library counts lines from 0 for parser (not scanner)
			// problems, and names the line where the enclosing block or
			// flow collection starts.
			line++
		}
		e.Pos.Line = line + lineOff
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	e.Msg = "invalid YAML: " + msg
	return e
}

type yamlConv struct {
	file    string
	lineOff int
	budget  int
}

func (c *yamlConv) conv(y *yaml.Node, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, &Error{Pos: Pos{File: c.file, Line: y.Line + c.lineOff, Col: y.Column},
			Msg: fmt.Sprintf("values are nested more than %d deep", maxDepth)}
	}
	if c.budget--; c.budget < 0 {
		return nil, &Error{Pos: Pos{File: c.file, Line: y.Line + c.lineOff, Col: y.Column},
			Msg: fmt.Sprintf("more than %d values (counting what aliases repeat)", maxYAMLNodes)}
	}
	n := &node{line: y.Line + c.lineOff, col: y.Column}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			n.kind = kNull
			return n, nil
		}
		return c.conv(y.Content[0], depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &Error{Pos: n.pos(c.file), Msg: "invalid YAML: unknown alias"}
		}
		return c.conv(y.Alias, depth+1)
	case yaml.ScalarNode:
		n.text = y.Value
		switch y.ShortTag() {
		case "!!null":
			n.kind = kNull
		case "!!bool":
			n.kind = kBool
		case "!!int", "!!float":
			n.kind = kNumber
		default:
			n.kind = kString
		}
	case yaml.SequenceNode:
		n.kind = kList
		for _, it := range y.Content {
			v, err := c.conv(it, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	case yaml.MappingNode:
		n.kind = kObject
		for i := 0; i+1 < len(y.Content); i += 2 {
			k := y.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{Pos: Pos{File: c.file, Line: y.Content[i].Line + c.lineOff, Col: y.Content[i].Column},
					Msg: "mapping keys must be plain values, not lists or mappings"}
			}
			v, err := c.conv(y.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: k.Value,
				line: y.Content[i].Line + c.lineOff, col: y.Content[i].Column, val: v})
		}
	default:
		return nil, &Error{Pos: n.pos(c.file), Msg: "invalid YAML"}
	}
	return n, nil
}
