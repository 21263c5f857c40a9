package manifests

import "fmt"

// Two copies of a key in an imported configuration are read differently
// by different readers: jq, Python and JavaScript take the last, some
// take the first, and a reviewer cannot tell which one a program starts.
// So mcp starts neither: a server id written twice, or an entry with a key
// written twice anywhere in it, makes that id unusable, and a key written
// twice elsewhere in what mcp reads of the file makes the whole file so.
// Each is one warning that names the file, the line and the key. (Our own
// files refuse every duplicate as an error.)

// duplicateIDs are the ids of the servers map m written more than once,
// each with one error (at its second copy) that says neither is used.
func duplicateIDs(m *node, file, field string) (map[string]bool, Errors) {
	first := map[string]*member{}
	dup := map[string]bool{}
	var errs Errors
	for i := range m.members {
		em := &m.members[i]
		prev, seen := first[em.key]
		if !seen {
			first[em.key] = em
			continue
		}
		if !dup[em.key] {
			errs = append(errs, &Error{Pos: em.pos(file), Field: field, Value: em.key, Msg: "is a duplicate server id",
				Hint: fmt.Sprintf("it is also written at line %d, and mcp starts neither", prev.line)})
		}
		dup[em.key] = true
	}
	return dup, errs
}

// duplicateKey is the error of the first key written twice in one object
// of n (field names n in messages), or nil; skip, when set, says which
// objects are not looked into.
func duplicateKey(n *node, file, field string, skip func(*node) bool) *Error {
	if n == nil || skip != nil && skip(n) {
		return nil
	}
	switch n.kind {
	case kObject:
		lines := make(map[string]int, len(n.members))
		for i := range n.members {
			m := &n.members[i]
			if prev, dup := lines[m.key]; dup {
				return &Error{Pos: m.pos(file), Field: field, Value: m.key, Msg: "is a duplicate key",
					Hint: fmt.Sprintf("it is already set at line %d", prev)}
			}
			lines[m.key] = m.line
		}
		for i := range n.members {
			m := &n.members[i]
			sub := m.key
			if field != "" {
				sub = field + "." + m.key
			}
			if e := duplicateKey(m.val, file, sub, skip); e != nil {
				return e
			}
		}
	case kList:
		for i, it := range n.items {
			if e := duplicateKey(it, file, fmt.Sprintf("%s[%d]", field, i), skip); e != nil {
				return e
			}
		}
	}
	return nil
}

// duplicateOutside is the error of a key written twice in the file's tree
// top outside its servers maps (m, and a top-level mcpServers that another
// scope of the same file reads), whose entries serverMap checks one by one.
func duplicateOutside(top, m *node, file string) *Error {
	user := memberVal(top, "mcpServers")
	return duplicateKey(top, file, "", func(n *node) bool { return n == m || n == user && n.kind == kObject })
}
