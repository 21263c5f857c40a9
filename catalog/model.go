package catalog

// The model of a tool's arguments: what each top-level property of its
// input schema allows, read from the schema as the JSON Schema library
// compiles it, so that local references ($ref to #/$defs/..., to
// #/definitions/... or to any other JSON pointer such as #/properties/x)
// are followed by the library, not here. Coercion (args.go), validation
// (schema.go) and signatures (params.go) all read this one model.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// prop is what the model knows of one schema: the types it allows (nil
// with anyType when it allows any), its enum values, its default, the
// items of an array and the properties of an object. $ref, anyOf and oneOf
// are followed.
type prop struct {
	types    []string // allowed JSON types, null last
	anyType  bool     // no type is named anywhere: any JSON value
	enum     []any
	def      *any
	desc     string
	items    *prop
	fields   map[string]*prop // an object's properties
	required []string         // an object's required properties
	// lo and hi bound a number, when the schema does (minimum, maximum,
	// exclusive ones as their nearest integers inside).
	lo, hi *float64
	// branches are the alternatives of an anyOf or oneOf, each read on
	// its own, when there are two or more: the rest of prop merges them
	// (what coercion needs), a signature shows each (what a reader needs).
	branches []*prop
}

func (p *prop) allows(t string) bool {
	if p == nil || p.anyType {
		return true
	}
	for _, x := range p.types {
		if x == t || (t == "integer" && x == "number") {
			return true
		}
	}
	return false
}

// unknownType says whether the property names a type JSON Schema does not
// define, which takes text as it is.
func (p *prop) unknownType() bool {
	for _, t := range p.types {
		switch t {
		case "null", "boolean", "number", "integer", "string", "array", "object":
		default:
			return true
		}
	}
	return false
}

// isArray says whether repeating the key appends items: the property is
// an array and nothing else but null.
func (p *prop) isArray() bool {
	if p == nil || p.anyType {
		return false
	}
	for _, t := range p.types {
		if t != "array" && t != "null" {
			return false
		}
	}
	return contains(p.types, "array")
}

// model is a compiled input schema and the model of its root.
type model struct {
	schema *jsonschema.Schema // nil when the schema could not be compiled
	err    error
	root   *prop // nil when the schema has no properties to read
}

// field is the model of one top-level property, nil when not declared.
func (m *model) field(name string) *prop {
	if m == nil || m.root == nil {
		return nil
	}
	return m.root.fields[name]
}

// needed says whether a top-level property must be given: it is
// required and has no default, which the server fills in.
func (m *model) needed(name string) bool {
	if m == nil || m.root == nil || !contains(m.root.required, name) {
		return false
	}
	f := m.root.fields[name]
	return f == nil || f.def == nil
}

// maxDepth bounds how deep the model reads nested items and properties.
const maxDepth = 8

func buildModel(schema json.RawMessage) *model {
	s, doc, err := compileSchema(schema)
	if err != nil {
		return &model{err: err, root: rawProps(schema)}
	}
	r := reader{doc: doc, seen: map[*jsonschema.Schema]bool{}}
	return &model{schema: s, root: r.describe(s, 0)}
}

// reader reads a compiled schema into props. doc is the schema as JSON,
// for what the library leaves out; seen holds the schemas on the way to
// the one being read: a reference back to one of them (a cycle) reads as
// any type.
type reader struct {
	doc  any
	seen map[*jsonschema.Schema]bool
}

// describe reads one compiled schema.
func (r reader) describe(s *jsonschema.Schema, depth int) *prop {
	p := &prop{}
	if s == nil || r.seen[s] || depth > maxDepth {
		p.anyType = true
		return p
	}
	r.seen[s] = true
	defer delete(r.seen, s)
	p.desc, p.def = s.Description, s.Default
	if s.Ref != nil && p.desc == "" {
		// Before draft 2019-09 the library ignores a $ref's siblings, but
		// the description beside a $ref (zod 4 writes one) is about this
		// property, not about what it refers to, and wins.
		p.desc = siblingDescription(r.doc, s.Location)
	}
	if s.Bool != nil {
		p.anyType = *s.Bool
		return p
	}
	p.lo, p.hi = bound(s.Minimum, s.ExclusiveMinimum, 1), bound(s.Maximum, s.ExclusiveMaximum, -1)
	named := false
	if s.Types != nil {
		named = true
		p.addTypes(s.Types.ToStrings())
	}
	if s.Enum != nil {
		p.enum = append(p.enum, s.Enum.Values...)
		if !named {
			named = true
			p.addTypes(valueTypes(s.Enum.Values))
		}
	}
	if s.Const != nil {
		p.enum = append(p.enum, *s.Const)
		if !named {
			named = true
			p.addTypes(valueTypes([]any{*s.Const}))
		}
	}
	r.readShape(p, s, depth)
	var branches []*prop
	for _, a := range append(append([]*jsonschema.Schema{}, s.AnyOf...), s.OneOf...) {
		b := r.describe(a, depth+1)
		branches = append(branches, b)
		named = p.merge(b, false) || named
	}
	var same []*jsonschema.Schema // schemas that are this one: a $ref's target, a lone allOf
	if s.Ref != nil {
		same = append(same, s.Ref)
	}
	if len(s.AllOf) == 1 { // a wrapper some generators emit around a $ref
		same = append(same, s.AllOf[0])
	}
	for _, a := range same {
		b := r.describe(a, depth+1)
		named = p.merge(b, s.Ref == a) || named
		if branches == nil {
			branches = b.branches
		}
	}
	if len(branches) > 1 {
		p.branches = branches
	}
	p.anyType = p.anyType || !named
	if p.anyType {
		p.types = nil
	}
	return p
}

// bound is an inclusive bound, or the nearest integer inside an
// exclusive one (step 1 for a minimum, -1 for a maximum); nil without
// either.
func bound(inclusive, exclusive *big.Rat, step float64) *float64 {
	switch {
	case inclusive != nil:
		f, _ := inclusive.Float64()
		return &f
	case exclusive != nil:
		f, _ := exclusive.Float64()
		if step > 0 {
			f = math.Floor(f) + 1
		} else {
			f = math.Ceil(f) - 1
		}
		return &f
	}
	return nil
}

// readShape reads an array's items and an object's properties into p.
func (r reader) readShape(p *prop, s *jsonschema.Schema, depth int) {
	items := s.Items2020
	if it, ok := s.Items.(*jsonschema.Schema); ok {
		items = it
	}
	if items != nil {
		p.items = r.describe(items, depth+1)
	}
	if len(s.Properties) > 0 {
		p.fields = make(map[string]*prop, len(s.Properties))
		for name, ps := range s.Properties {
			p.fields[name] = r.describe(ps, depth+1)
		}
		p.required = append(p.required, s.Required...)
	}
}

// merge adds what an alternative (or the target of a $ref) allows, and
// says whether it names any type. A $ref's target also gives the
// description and default the referring schema does not.
func (p *prop) merge(a *prop, isRef bool) bool {
	if a.anyType {
		p.anyType = true
		return true
	}
	p.addTypes(a.types)
	p.enum = append(p.enum, a.enum...)
	if p.items == nil {
		p.items = a.items
	}
	if p.fields == nil {
		p.fields, p.required = a.fields, a.required
	}
	if isRef {
		if p.desc == "" {
			p.desc = a.desc
		}
		if p.def == nil {
			p.def = a.def
		}
	}
	return len(a.types) > 0
}

// addTypes adds types not yet allowed, keeping null last.
func (p *prop) addTypes(ts []string) {
	null := contains(p.types, "null")
	if null {
		p.types = p.types[:len(p.types)-1]
	}
	for _, t := range ts {
		if t == "null" {
			null = true
		} else if !contains(p.types, t) {
			p.types = append(p.types, t)
		}
	}
	if null {
		p.types = append(p.types, "null")
	}
}

// valueTypes are the JSON types of enum or const values.
func valueTypes(vals []any) []string {
	var out []string
	for _, v := range vals {
		var t string
		switch v.(type) {
		case nil:
			t = "null"
		case bool:
			t = "boolean"
		case string:
			t = "string"
		case []any:
			t = "array"
		case map[string]any:
			t = "object"
		default:
			t = "number"
		}
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// models keeps the model of each schema seen, so that a list of many
// tools, and each call of one, compiles its schema once.
var models = modelCache{max: 512}

type modelCache struct {
	mu  sync.Mutex
	max int
	m   map[string]*model
}

// get is the model of schema, built the first time.
func (c *modelCache) get(schema json.RawMessage) *model {
	if len(bytes.TrimSpace(schema)) == 0 {
		return &model{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.m[string(schema)]; ok {
		return m
	}
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string]*model{}
	}
	m := buildModel(schema)
	c.m[string(schema)] = m
	return m
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas are not loaded from %s", url)
}

// inputURL is the name an input schema is compiled under.
const inputURL = "urn:mcp:input"

// compileSchema compiles an input schema, and gives it as JSON too.
func compileSchema(schema json.RawMessage) (*jsonschema.Schema, any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(inputURL, doc); err != nil {
		return nil, nil, err
	}
	s, err := c.Compile(inputURL)
	return s, doc, err
}

// siblingDescription is the description written in doc at loc, a
// compiled schema's location (inputURL#/json/pointer), or "".
func siblingDescription(doc any, loc string) string {
	ptr, ok := strings.CutPrefix(loc, inputURL+"#")
	if !ok {
		return ""
	}
	if p, err := url.PathUnescape(ptr); err == nil {
		ptr = p
	}
	at := doc
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := at.(type) {
		case map[string]any:
			at = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return ""
			}
			at = v[i]
		default:
			return ""
		}
	}
	m, _ := at.(map[string]any)
	d, _ := m["description"].(string)
	return d
}

// rawProps reads the properties of a schema the library cannot compile (a
// remote $ref, a pattern it cannot read) as written, following nothing:
// the signature still shows them, and the server checks the rest.
func rawProps(schema json.RawMessage) *prop {
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &root) != nil || len(root.Properties) == 0 {
		return nil
	}
	p := &prop{fields: map[string]*prop{}, required: root.Required}
	for name, raw := range root.Properties {
		p.fields[name] = rawProp(raw, 0)
	}
	return p
}

func rawProp(raw json.RawMessage, depth int) *prop {
	var n struct {
		Type        any             `json:"type"`
		Enum        []any           `json:"enum"`
		Default     *any            `json:"default"`
		Description string          `json:"description"`
		Items       json.RawMessage `json:"items"`
	}
	p := &prop{}
	if json.Unmarshal(raw, &n) != nil {
		p.anyType = true
		return p
	}
	p.desc, p.def, p.enum = n.Description, n.Default, n.Enum
	switch t := n.Type.(type) {
	case string:
		p.addTypes([]string{t})
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				p.addTypes([]string{s})
			}
		}
	}
	if len(p.types) == 0 && len(n.Enum) > 0 {
		p.addTypes(valueTypes(n.Enum))
	}
	if len(n.Items) > 0 && depth < maxDepth {
		p.items = rawProp(n.Items, depth+1)
	}
	p.anyType = len(p.types) == 0
	return p
}
