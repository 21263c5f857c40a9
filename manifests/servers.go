package manifests

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// endpointKeys are the keys of an mcpServers entry.
var endpointKeys = []string{"command", "args", "env", "passEnv", "cwd", "url", "type", "headers", "oauth", "protocolVersion"}

// transportTypes maps each accepted "type" to its transport.
var transportTypes = map[string]Transport{
	"stdio":           TransportStdio,
	"http":            TransportHTTP,
	"streamable-http": TransportHTTP,
	"streamableHttp":  TransportHTTP,
	"sse":             TransportSSE,
}

const typeHint = `type is one of "stdio", "http", "streamable-http", "streamableHttp", "sse"`

// parseServers parses a JSON file holding a map of endpoints under key
// ("mcpServers", or "servers" for VS Code files) and returns its entries in
// file order. Other top-level keys are ignored; a file without key has no
// entries. Dir of each entry is the directory part of file. Problems come
// back as Errors.
//
// Strict (lenient false) is for our own files: every problem is an error
// and unknown entry keys are problems. Lenient is for files that other
// programs own: unknown entry keys are ignored, an entry with "disabled":
// true is left out, and an entry with a problem is skipped, its problems
// returned as skipped. Problems with the file as a whole are err in both
// modes.
func parseServers(data []byte, file, key string, lenient bool) (eps []Endpoint, skipped Errors, err error) {
	top, err := parseJSON(data, file)
	if err != nil {
		return nil, nil, err
	}
	m, err := serversAt(top, file, key)
	if m == nil || err != nil {
		return nil, nil, err
	}
	return serverMap(m, file, key, lenient, nil)
}

// serversAt finds the map of servers under key in the object top: nil when
// the key is absent or null, an error when top is not an object or the
// value is not one.
func serversAt(top *node, file, key string) (*node, error) {
	fc := &checker{file: file}
	f, ok := fc.fields(top, "", []string{key}, false)
	if !ok {
		return nil, fc.errs
	}
	m := f[key]
	if m == nil || m.val.kind == kNull {
		return nil, fc.errs.err()
	}
	if m.val.kind != kObject {
		fc.at(m.val, key, "", "must be an object of servers by id, not "+fc.kindName(m.val.kind),
			fmt.Sprintf(`write "%s": {"ID": {"command": "..."}}`, key))
		return nil, fc.errs
	}
	return m.val, fc.errs.err()
}

// shapeFunc turns one entry of another program's file (n, the value of
// server id's key, named field in messages) into an entry of the shape
// parseServers reads, keeping where each value was written. It records
// problems in c, and returns keep false to leave the entry out quietly
// (one switched off in that program).
type shapeFunc func(c *checker, id, field string, n *node) (entry *node, keep bool)

// serverMap reads the servers of the object m, named field in messages
// (the key of the map, or its path). shape, when set, first turns each
// entry into the shape of our own files.
func serverMap(m *node, file, field string, lenient bool, shape shapeFunc) (eps []Endpoint, skipped Errors, err error) {
	fc := &checker{file: file}
	if fc.tooMany(m, field, len(m.members)) {
		return nil, nil, fc.errs
	}
	var errs Errors
	seen := map[string]Pos{}
	var dup map[string]bool
	if lenient {
		// An imported file's duplicates start nothing (dupkeys.go).
		dup, skipped = duplicateIDs(m, file, field)
	}
	for i := range m.members {
		em := m.members[i]
		if dup[em.key] {
			continue
		}
		c := &checker{file: file}
		if lenient {
			if e := duplicateKey(em.val, file, field+"."+em.key, nil); e != nil {
				skipped = append(skipped, e)
				continue
			}
		}
		keep := true
		if shape != nil && ValidServerID(em.key) {
			em.val, keep = shape(c, em.key, field+"."+em.key, em.val)
		}
		var ep Endpoint
		if keep && len(c.errs) == 0 {
			ep, keep = c.endpoint(&em, field, seen, lenient)
		}
		switch {
		case len(c.errs) > 0 && lenient:
			skipped = append(skipped, c.errs...)
		case len(c.errs) > 0:
			errs = append(errs, c.errs...)
		case keep:
			ep.Dir = filepath.Dir(file)
			eps = append(eps, ep)
		}
	}
	if len(errs) > 0 {
		return nil, skipped, errs
	}
	return eps, skipped, nil
}

// endpoint checks one entry; keep is false for a disabled imported entry.
func (c *checker) endpoint(em *member, key string, seen map[string]Pos, lenient bool) (ep Endpoint, keep bool) {
	id := em.key
	field := key + "." + id
	if !ValidServerID(id) {
		field = key
	}
	ep = Endpoint{ID: id, Pos: em.pos(c.file)}
	if !c.serverID(id, em.pos(c.file), key, seen) {
		return ep, false
	}
	known := endpointKeys
	if lenient {
		known = append(known[:len(known):len(known)], "disabled")
	}
	f, ok := c.fields(em.val, field, known, !lenient)
	if !ok {
		return ep, false
	}
	if d := f["disabled"]; d != nil && d.val.kind == kBool && d.val.text == "true" {
		return ep, false
	}
	c.stdioFields(&ep, f, field)
	c.urlFields(&ep, f, field, lenient)
	typeNode := c.transportType(&ep, f, field)
	c.commandOrURL(em.val, f, field, ep.Type, typeNode)
	c.protocolVersion(&ep, f, field)
	return ep, true
}

// stdioFields reads the fields of a server started from a command into ep.
func (c *checker) stdioFields(ep *Endpoint, f map[string]*member, field string) {
	if m := f["command"]; m != nil {
		fld := field + "." + m.name()
		if s, ok := c.str(m.val, fld); ok {
			if s == "" {
				c.at(m.val, fld, "", "is empty", "name the program to run")
			}
			ep.Command = s
			c.expansion(m.val.pos(c.file), fld, s)
		}
	}
	if m := f["args"]; m != nil {
		fld := field + "." + m.name()
		args, pos, _ := c.strList(m.val, fld)
		for i, a := range args {
			c.expansion(pos[i], fmt.Sprintf("%s[%d]", fld, i), a)
		}
		ep.Args = args
	}
	if m := f["env"]; m != nil {
		ep.Env = c.stringMap(m.val, field+"."+m.name(), validEnvName, "variable names are not empty and hold no = or NUL")
	}
	if m := f["passEnv"]; m != nil {
		ep.PassEnv = c.passEnv(m.val, field+"."+m.name())
	}
	if m := f["cwd"]; m != nil {
		fld := field + "." + m.name()
		if s, ok := c.str(m.val, fld); ok {
			ep.Cwd = s
			c.expansion(m.val.pos(c.file), fld, s)
		}
	}
}

// passEnv reads the names and prefixes of the host variables a server
// gets as they are.
func (c *checker) passEnv(n *node, field string) []string {
	list, pos, _ := c.strList(n, field)
	out := list[:0:0]
	for i, s := range list {
		if !validPassEnv(s) {
			c.add(pos[i], fmt.Sprintf("%s[%d]", field, i), s, "is not a variable name or prefix",
				`name a variable ("AWS_PROFILE") or a prefix ending in * ("AWS_*"); a lone * is not allowed`)
			continue
		}
		out = append(out, s)
	}
	return out
}

// urlFields reads the fields of a server reached by url into ep.
func (c *checker) urlFields(ep *Endpoint, f map[string]*member, field string, lenient bool) {
	if m := f["url"]; m != nil {
		if s, ok := c.str(m.val, field+"."+m.name()); ok {
			ep.URL = s
			c.checkURL(m.val, field+"."+m.name(), s)
		}
	}
	if m := f["headers"]; m != nil {
		ep.Headers = c.stringMap(m.val, field+"."+m.name(), validHeaderName, "header names are HTTP tokens")
	}
	if m := f["oauth"]; m != nil {
		ep.OAuth = c.oauth(m.val, field+".oauth", lenient)
		if f["command"] != nil {
			c.at(m.val, field+".oauth", "", "is only for servers reached by url", "a stdio server takes its credentials from env")
		}
	}
}

// transportType reads the type field into ep and returns its node when it
// names a known transport (nil otherwise).
func (c *checker) transportType(ep *Endpoint, f map[string]*member, field string) *node {
	m := f["type"]
	if m == nil {
		return nil
	}
	s, ok := c.str(m.val, field+"."+m.name())
	if !ok {
		return nil
	}
	ep.Type = s
	if _, known := transportTypes[s]; !known {
		c.at(m.val, field+"."+m.name(), s, "is not a known transport type", typeHint)
		return nil
	}
	return m.val
}

// commandOrURL checks that the entry n has exactly one of command and url,
// and the one its known transport type (typ, from typeNode) needs.
func (c *checker) commandOrURL(n *node, f map[string]*member, field, typ string, typeNode *node) {
	switch {
	case f["command"] != nil && f["url"] != nil:
		c.at(n, field, "", "has both command and url", "an entry is either a program to run (command) or a server to reach (url)")
	case f["command"] == nil && f["url"] == nil:
		c.at(n, field, "", "has neither command nor url", "an entry needs exactly one of command (stdio) or url (HTTP or SSE)")
	case f["passEnv"] != nil && f["command"] == nil:
		c.at(f["passEnv"].val, field+"."+f["passEnv"].name(), "", "is for a server started from command", "a server reached by url gets no environment; send what it needs in headers")
	case typeNode != nil && typ == "stdio" && f["command"] == nil:
		c.at(typeNode, field+".type", typ, "needs command", "a stdio server is started from command; for a url use type http or sse")
	case typeNode != nil && typ != "stdio" && f["url"] == nil:
		c.at(typeNode, field+".type", typ, "needs url", `a command is started over stdio; use type "stdio" or leave type out`)
	}
}

// stringMap reads an object of string values (env, headers). Values are never
// echoed in messages.
func (c *checker) stringMap(n *node, field string, validKey func(string) bool, keyHint string) map[string]string {
	if n.kind == kNull {
		return nil
	}
	if n.kind != kObject {
		c.wrongType(n, field, "an object of strings")
		return nil
	}
	out := make(map[string]string, len(n.members))
	lines := map[string]int{}
	for i := range n.members {
		m := &n.members[i]
		f := field + "." + m.key
		if !validKey(m.key) {
			c.add(m.pos(c.file), field, m.key, "is not a valid name", keyHint)
			continue
		}
		if prev, dup := lines[m.key]; dup {
			c.add(m.pos(c.file), field, m.key, "is a duplicate key", fmt.Sprintf("it is already set at line %d", prev))
			continue
		}
		lines[m.key] = m.line
		if s, ok := c.str(m.val, f); ok {
			out[m.key] = s
			c.expansion(m.val.pos(c.file), f, s)
		}
	}
	return out
}

func validEnvName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "=\x00")
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// expansion reports a malformed ${...} in s without echoing s.
func (c *checker) expansion(p Pos, field, s string) {
	if _, err := expandString(s, func(string) (string, bool) { return "", true }); err != nil {
		c.add(p, field, "", "has a malformed ${...}", "write ${NAME} or ${NAME:-default}, with NAME from A-Z, a-z, 0-9 and _")
	}
}

// checkURL checks a url that holds no ${...}; the url is never echoed, as it
// may carry a token.
func (c *checker) checkURL(n *node, field, s string) {
	c.expansion(n.pos(c.file), field, s)
	if strings.Contains(s, "${") {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.at(n, field, "", "is not an http or https URL", "write a full URL such as https://host/mcp")
	}
}

// Transport says how the endpoint is reached: command is stdio; a url with
// type "http", "streamable-http" or "streamableHttp" is streamable HTTP, with
// type "sse" SSE, and without type TransportAuto (streamable HTTP falling
// back to SSE).
func (e Endpoint) Transport() (Transport, error) {
	fail := func(msg, hint string) (Transport, error) {
		return "", &Error{Pos: e.Pos, Field: e.ID, Msg: msg, Hint: hint}
	}
	t, known := transportTypes[e.Type]
	if e.Type != "" && !known {
		return "", &Error{Pos: e.Pos, Field: e.ID + ".type", Value: e.Type, Msg: "is not a known transport type", Hint: typeHint}
	}
	switch {
	case e.Command != "" && e.URL != "":
		return fail("has both command and url", "an entry needs exactly one of them")
	case e.Command != "":
		if e.Type != "" && t != TransportStdio {
			return fail("has type "+e.Type+" but a command", `a command is started over stdio; use type "stdio" or leave type out`)
		}
		return TransportStdio, nil
	case e.URL != "":
		if e.Type == "" {
			return TransportAuto, nil
		}
		if t == TransportStdio {
			return fail("has type stdio but a url", "a stdio server is started from command")
		}
		return t, nil
	}
	return fail("has neither command nor url", "an entry needs exactly one of them")
}
