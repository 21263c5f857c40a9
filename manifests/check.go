package manifests

import (
	"fmt"
	"slices"
	"strings"
)

// checker collects the problems of one file.
type checker struct {
	file string
	yaml bool // word types the YAML way ("mapping")
	errs Errors
}

func (c *checker) add(p Pos, field, value, msg, hint string) {
	c.errs = append(c.errs, &Error{Pos: p, Field: field, Value: value, Msg: msg, Hint: hint})
}

func (c *checker) at(n *node, field, value, msg, hint string) {
	c.add(n.pos(c.file), field, value, msg, hint)
}

func (c *checker) kindName(k kind) string {
	switch k {
	case kNull:
		return "null"
	case kBool:
		return "a boolean"
	case kNumber:
		return "a number"
	case kString:
		return "a string"
	case kObject:
		if c.yaml {
			return "a mapping"
		}
		return "an object"
	case kList:
		return "a list"
	}
	return "unknown"
}

// wrongType reports that n is not of the wanted type. The value itself is
// never echoed: it may be a secret.
func (c *checker) wrongType(n *node, field, want string) {
	c.at(n, field, "", fmt.Sprintf("must be %s, not %s", want, c.kindName(n.kind)), "")
}

func (c *checker) objectWord() string {
	if c.yaml {
		return "a mapping"
	}
	return "an object"
}

// fields checks that n is an object and returns its members by key. Keys not
// in known are errors when strict (typos must not silently change policy)
// and ignored otherwise. A repeated key is an error when it is known or
// strict. ok is false when n is not an object.
func (c *checker) fields(n *node, field string, known []string, strict bool) (map[string]*member, bool) {
	if n.kind != kObject {
		c.wrongType(n, field, c.objectWord())
		return nil, false
	}
	out := make(map[string]*member, len(n.members))
	for i := range n.members {
		m := &n.members[i]
		isKnown := slices.Contains(known, m.key)
		if !isKnown {
			if strict {
				c.add(m.pos(c.file), field, m.key, "is not a known key", unknownKeyHint(m.key, known)+misplacedHint(field, m.key))
			}
			continue
		}
		if prev, dup := out[m.key]; dup {
			c.add(m.pos(c.file), field, m.key, "is a duplicate key",
				fmt.Sprintf("it is already set at line %d", prev.line))
			continue
		}
		out[m.key] = m
	}
	return out, true
}

// misplacedHint says where a key that one block does not know belongs,
// when it is a key of a block below it: an agent's include, exclude,
// defer and eager go under each of its servers.
func misplacedHint(field, key string) string {
	if field == "mcp" && slices.Contains(agentServerKeys, key) {
		return fmt.Sprintf("; %s goes under each server, as mcp.servers.ID.%s", key, key)
	}
	return ""
}

// unknownKeyHint lists the valid keys and, when one is close, suggests it.
func unknownKeyHint(key string, known []string) string {
	hint := "valid keys are " + strings.Join(known, ", ")
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		hint = fmt.Sprintf("did you mean %q? %s", best, hint)
	}
	return hint
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (c *checker) str(n *node, field string) (string, bool) {
	if n.kind != kString {
		c.wrongType(n, field, "a string")
		return "", false
	}
	return n.text, true
}

func (c *checker) boolean(n *node, field string) (bool, bool) {
	if n.kind != kBool {
		c.wrongType(n, field, "true or false")
		return false, false
	}
	return n.text == "true", true
}

// strList reads a list of strings. Null reads as an empty list.
func (c *checker) strList(n *node, field string) ([]string, []Pos, bool) {
	if n.kind == kNull {
		return []string{}, []Pos{}, true
	}
	if n.kind != kList {
		c.wrongType(n, field, "a list of strings")
		return nil, nil, false
	}
	out, pos := make([]string, 0, len(n.items)), make([]Pos, 0, len(n.items))
	ok := true
	for i, it := range n.items {
		s, good := c.str(it, fmt.Sprintf("%s[%d]", field, i))
		if !good {
			ok = false
			continue
		}
		out = append(out, s)
		pos = append(pos, it.pos(c.file))
	}
	return out, pos, ok
}

// toolList reads a list of exact tool names. star says whether "*" may be
// its only entry (include and defer) or is forbidden (exclude and eager);
// list names the key for messages. Null reads as an empty list.
func (c *checker) toolList(n *node, field, list string, star bool) ([]string, []Pos) {
	if n.kind == kNull {
		return []string{}, []Pos{}
	}
	if n.kind != kList {
		hint := fmt.Sprintf(`write %s: ["name", ...]`, list)
		if c.yaml {
			hint = fmt.Sprintf(`write %s as a list, e.g. %s: [name]`, list, list)
		}
		c.at(n, field, "", fmt.Sprintf("must be a list of tool names, not %s", c.kindName(n.kind)), hint)
		return nil, nil
	}
	names, pos := make([]string, 0, len(n.items)), make([]Pos, 0, len(n.items))
	for i, it := range n.items {
		f := fmt.Sprintf("%s[%d]", field, i)
		if it.kind != kString {
			c.at(it, f, "", fmt.Sprintf("must be a tool name (a string), not %s", c.kindName(it.kind)),
				"quote names that look like numbers or booleans")
			continue
		}
		name := it.text
		switch {
		case name == "*" && !star:
			c.at(it, f, name, "is not allowed in "+list, list+" lists exact tool names")
			continue
		case name == "*" && len(n.items) > 1:
			c.at(it, f, name, "must be the only entry of "+list, `"*" already means every tool`)
			continue
		case name == "*":
		case isPattern(name):
			c.at(it, f, name, "is a pattern", `tool names are exact or "*"`)
			continue
		case !ValidToolName(name):
			c.at(it, f, name, "is not a valid tool name", toolNameHint)
			continue
		}
		names = append(names, name)
		pos = append(pos, it.pos(c.file))
	}
	return names, pos
}

// serverID checks a server id; seen maps canonical ids already in the same
// list to where they were written, and is updated.
func (c *checker) serverID(id string, p Pos, field string, seen map[string]Pos) bool {
	if !ValidServerID(id) {
		c.add(p, field, id, "is not a valid server id", serverIDHint)
		return false
	}
	canon := CanonicalID(id)
	if prev, dup := seen[canon]; dup {
		c.add(p, field, id, "is a duplicate server id",
			fmt.Sprintf("it is already declared at line %d (- and _ are the same in server ids)", prev.Line))
		return false
	}
	seen[canon] = p
	return true
}

// tooMany reports a list of server entries over the per-file bound.
func (c *checker) tooMany(n *node, field string, count int) bool {
	if count <= maxServers {
		return false
	}
	c.at(n, field, "", fmt.Sprintf("has %d server entries, over the limit of %d per file", count, maxServers),
		fmt.Sprintf("a configuration file may hold at most %d servers", maxServers))
	return true
}
