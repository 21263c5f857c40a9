package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
)

// What a connection takes of a server's tools/list is bounded, so that
// list, search, serve, run and the catalog cache hold a bounded set
// whatever the server sends.
const (
	// maxDescription bounds a tool's description, in runes, as a
	// server's instructions are bounded where they are passed on.
	maxDescription = 8 << 10
	// maxTitle bounds a tool's title (and its annotations' title): a
	// name for people, on one line.
	maxTitle = 256
	// maxSchema bounds a tool's input and output schema, in bytes of
	// JSON: far more than real servers' largest, and a tool with a larger
	// one is not offered.
	maxSchema = 256 << 10
	// maxToolJSON bounds all of a tool's JSON once its text is cut.
	maxToolJSON = 1 << 20
	// maxTools bounds the tools taken from one server; those after are
	// left out.
	maxTools = 10000
)

// floodKindTool counts tools not offered for their size.
const floodKindTool = "tool"

// boundTool is t with its description and titles cut (in Raw too), or
// false, with a warning, when its schemas or JSON are too large to take.
func (u *conn) boundTool(t catalog.Tool) (catalog.Tool, bool) {
	for _, s := range []struct {
		which  string
		schema json.RawMessage
	}{{"input", t.InputSchema}, {"output", t.OutputSchema}} {
		if len(s.schema) > maxSchema {
			u.warnRefused(t.Name, fmt.Sprintf("its %s schema is %d KiB of JSON, more than %d KiB", s.which, len(s.schema)>>10, maxSchema>>10))
			return catalog.Tool{}, false
		}
	}
	desc, title := clip.Runes(t.Description, maxDescription), clip.Runes(t.Title, maxTitle)
	if desc != t.Description || title != t.Title || len(t.Raw) > maxDescription+maxTitle+2*maxSchema {
		raw, err := cutRaw(t.Raw)
		if err != nil {
			u.log.Warn("skipping a tool the server described badly", "err", err)
			return catalog.Tool{}, false
		}
		t.Description, t.Title, t.Raw = desc, title, raw
	}
	if len(t.Raw) > maxToolJSON {
		u.warnRefused(t.Name, fmt.Sprintf("its definition is %d KiB of JSON, more than %d KiB", len(t.Raw)>>10, maxToolJSON>>10))
		return catalog.Tool{}, false
	}
	return t, true
}

// cutRaw is a tool's JSON with its description, title and annotations'
// title cut as boundTool cuts them; its other members are kept as they
// are (in the order of their names).
func cutRaw(raw json.RawMessage) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	if err := cutMember(obj, "description", maxDescription); err != nil {
		return nil, err
	}
	if err := cutMember(obj, "title", maxTitle); err != nil {
		return nil, err
	}
	if a := obj["annotations"]; len(a) > 0 && a[0] == '{' {
		var ann map[string]json.RawMessage
		if err := json.Unmarshal(a, &ann); err != nil {
			return nil, err
		}
		if err := cutMember(ann, "title", maxTitle); err != nil {
			return nil, err
		}
		cut, err := marshalPlain(ann)
		if err != nil {
			return nil, err
		}
		obj["annotations"] = cut
	}
	return marshalPlain(obj)
}

// cutMember cuts the string obj[key], if it is one, to n runes.
func cutMember(obj map[string]json.RawMessage, key string, n int) error {
	v, ok := obj[key]
	if !ok || len(v) == 0 || v[0] != '"' || len(v) <= n+2 && utf8.Valid(v) {
		return nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return err
	}
	cut, err := marshalPlain(clip.Runes(s, n))
	obj[key] = cut
	return err
}

// marshalPlain is v's JSON without HTML escapes or a trailing newline.
func marshalPlain(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// warnRefused tells Options.OnWarning, once per tool, that a tool is not
// offered for its size; after the first, such tools are counted.
func (u *conn) warnRefused(name, why string) {
	u.log.Warn("skipping a tool too large to take", "tool", name, "why", why)
	if _, seen := u.warned.LoadOrStore(name, true); seen || u.onWarn == nil || !u.floods.admit(floodKindTool) {
		return
	}
	u.onWarn(fmt.Sprintf("%s.%s is not offered: %s", u.server, printable(u.secret.Text(name), 64), why))
}

// capped says whether tools holds as many tools as are taken from one
// server; when more follow, it warns, once per connection.
func (u *conn) capped(tools []catalog.Tool, more bool) bool {
	if len(tools) < maxTools {
		return false
	}
	if more && u.floods.once("capped") {
		line := fmt.Sprintf("%s: the server lists more than %d tools; only the first %d are offered", u.server, maxTools, maxTools)
		if u.onWarn != nil {
			u.onWarn(line)
		} else {
			u.log.Warn(line)
		}
	}
	return true
}
