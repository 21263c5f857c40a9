package callargs

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The validator follows $ref and the keywords that apply a subschema to the
// same value (allOf, not, if, ...) without noticing when they lead back to
// where they started, and recurses until the process dies. walkable looks
// for such loops in the schema first, and for fan-outs large enough to take
// noticeable time, and refuses the schema if it finds one.

// maxInPlace bounds the subschemas one value can be checked against through
// $ref and in-place keywords alone.
const maxInPlace = 1 << 14

// inPlace are the keywords whose subschemas apply to the value itself.
var (
	inPlaceOne  = []string{"not", "if", "then", "else"}
	inPlaceList = []string{"allOf", "anyOf", "oneOf"}
	inPlaceMap  = []string{"dependentSchemas", "dependencies"}
)

type schemaGraph struct {
	doc     any
	nodes   map[string]map[string]any // JSON pointer → schema object
	anchors map[string][]string       // anchor name → pointers
	state   map[string]int8           // 1 visiting, 2 done
	count   map[string]int            // subschemas reached in place, capped
}

// walkable reports why the validator cannot safely walk schema, or nil.
func walkable(schema json.RawMessage) error {
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return err
	}
	g := &schemaGraph{
		doc:     doc,
		nodes:   map[string]map[string]any{},
		anchors: map[string][]string{},
		state:   map[string]int8{},
		count:   map[string]int{},
	}
	if err := g.collect(doc, ""); err != nil {
		return err
	}
	for p := range g.nodes {
		if _, err := g.visit(p); err != nil {
			return err
		}
	}
	return nil
}

// collect records every object under v as a possible schema, with its
// anchors. Objects that are data (a default, an enum value) are recorded
// too: a property may be named "default", and a stray node only ever makes
// the check more cautious.
func (g *schemaGraph) collect(v any, ptr string) error {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			if err := g.collect(e, ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case map[string]any:
		g.nodes[ptr] = v
		for k, e := range v {
			s, isString := e.(string)
			switch {
			case isString && foldIn(k, "$anchor", "$dynamicAnchor") && s != "":
				g.anchors[s] = append(g.anchors[s], ptr)
			case isString && foldIn(k, "$id") && ptr != "":
				if !strings.HasPrefix(s, "#") {
					// A nested $id moves the base of the references under it.
					return fmt.Errorf("%w: nested $id %q", errNotChecked, s)
				}
				g.anchors[s[1:]] = append(g.anchors[s[1:]], ptr)
			}
			if err := g.collect(e, ptr+"/"+escapePointer(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// visit walks the in-place edges from p depth first, failing on a loop, on
// a reference outside the document, or when more than maxInPlace
// subschemas are reached.
func (g *schemaGraph) visit(p string) (int, error) {
	switch g.state[p] {
	case 1:
		return 0, fmt.Errorf("%w: references loop through %q", errNotChecked, p)
	case 2:
		return g.count[p], nil
	}
	g.state[p] = 1
	next, err := g.edges(p)
	if err != nil {
		return 0, err
	}
	n := 1
	for _, q := range next {
		c, err := g.visit(q)
		if err != nil {
			return 0, err
		}
		if n += c; n > maxInPlace {
			return 0, fmt.Errorf("%w: over %d subschemas apply to one value", errNotChecked, maxInPlace)
		}
	}
	g.state[p], g.count[p] = 2, n
	return n, nil
}

// edges lists the schemas that apply to the same value as the schema at p.
// Keywords are matched regardless of case, as the validator's decoder does.
func (g *schemaGraph) edges(p string) ([]string, error) {
	var out []string
	for k, v := range g.nodes[p] {
		at := p + "/" + escapePointer(k)
		switch {
		case foldIn(k, "$ref", "$dynamicRef"):
			ref, ok := v.(string)
			if !ok || ref == "" {
				continue
			}
			to, ok := g.targets(ref)
			if !ok {
				return nil, fmt.Errorf("%w: reference %q outside the schema", errNotChecked, ref)
			}
			out = append(out, to...)
		case foldIn(k, inPlaceOne...):
			if _, ok := v.(map[string]any); ok {
				out = append(out, at)
			}
		case foldIn(k, inPlaceList...):
			list, _ := v.([]any)
			for i, e := range list {
				if _, ok := e.(map[string]any); ok {
					out = append(out, at+"/"+strconv.Itoa(i))
				}
			}
		case foldIn(k, inPlaceMap...):
			m, _ := v.(map[string]any)
			for name, e := range m {
				if _, ok := e.(map[string]any); ok {
					out = append(out, at+"/"+escapePointer(name))
				}
			}
		}
	}
	return out, nil
}

func foldIn(k string, words ...string) bool {
	for _, w := range words {
		if strings.EqualFold(k, w) {
			return true
		}
	}
	return false
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// targets are the schemas a $ref or $dynamicRef may lead to; ok is false
// for a reference to another document. A reference the validator cannot
// resolve leads nowhere: resolution fails before validation starts.
func (g *schemaGraph) targets(ref string) (to []string, ok bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil, true
	}
	frag := u.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return g.anchors[frag], true
	}
	v, ptr := g.doc, ""
	if frag != "" {
		for _, seg := range strings.Split(frag[1:], "/") {
			seg = pointerUnescaper.Replace(seg)
			switch c := v.(type) {
			case map[string]any:
				v = c[seg]
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(c) {
					return nil, true
				}
				v, seg = c[i], strconv.Itoa(i)
			default:
				return nil, true
			}
			ptr += "/" + escapePointer(seg)
		}
	}
	if _, isObject := v.(map[string]any); !isObject {
		return nil, true
	}
	return []string{ptr}, true
}
