package upstream

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/internal/jsonscan"
)

// A tools/list entry that cannot be a tool (not an object, or without a
// name that is a string) is not offered, and a warning names it by where
// it is in the list, since it has no name to go by.

// floodKindInvalid counts entries of a list not offered for their name.
const floodKindInvalid = "invalid tool"

// invalidTool says what keeps entry, one element of a tools/list
// result's tools, from being a tool, or "" when nothing does. It reads
// the name as encoding/json does (catalog.DecodeTool): of the members
// whose names fold to "name", a null one changes nothing, one that is not
// a string fails, and the last string is the name, which must not be
// empty. It reads the entry in place, skipping every other value.
func invalidTool(entry json.RawMessage) string {
	i := jsonscan.Space(entry, 0)
	if i >= len(entry) || entry[i] != '{' {
		return "it is " + literalKind(entry[i:]) + ", not an object"
	}
	name, found := "", false
	for key, value := range jsonscan.Members(entry) {
		if k, ok := jsonscan.Unquote(key); !ok || !strings.EqualFold(k, "name") || string(value) == "null" {
			continue
		}
		s, ok := jsonscan.Unquote(value)
		if !ok {
			return `its "name" is ` + literalKind(value) + ", not a string"
		}
		name, found = s, true
	}
	switch {
	case !found:
		return `it has no "name"`
	case name == "":
		return `its "name" is empty`
	}
	return ""
}

// literalKind names the kind of the JSON value that starts data, with its
// text when that is short and plain (a number, true or false).
func literalKind(data []byte) string {
	data = data[:max(0, jsonscan.End(data, 0))]
	if len(data) == 0 {
		return "not JSON"
	}
	switch data[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return string(data)
	case 'n':
		return "null"
	}
	if len(data) <= 24 {
		return "a number (" + string(data) + ")"
	}
	return "a number"
}

// entryTitle is the title an entry gives itself, if it has one that is a
// string: something a person may know the entry by when its name is
// wanting.
func entryTitle(entry json.RawMessage) string {
	title := ""
	for key, value := range jsonscan.Members(entry) {
		if k, ok := jsonscan.Unquote(key); ok && strings.EqualFold(k, "title") {
			if s, ok := jsonscan.Unquote(value); ok {
				title = s
			}
		}
	}
	return title
}

// warnInvalid tells Options.OnWarning, once per place in the list and
// connection, that entry i of page (from 0) of the list is not offered,
// and why; after the first few, such entries are counted. What it shows
// of the entry is its title, redacted and printable.
func (u *conn) warnInvalid(page, i int, entry json.RawMessage, problem string) {
	where := fmt.Sprintf("tools[%d]", i)
	if page > 0 {
		where += fmt.Sprintf(" of page %d", page+1)
	}
	if _, seen := u.warned.LoadOrStore("\x00"+where, true); seen || !u.floods.admit(floodKindInvalid) {
		return
	}
	if title := printable(u.secret.Text(entryTitle(entry)), 64); title != "" {
		where += fmt.Sprintf(" (titled %q)", title)
	}
	line := fmt.Sprintf("%s: the tool at %s of its tools/list is not offered: %s", u.server, where, problem)
	if u.onWarn != nil {
		u.onWarn(line)
	} else {
		u.log.Warn(line)
	}
}
