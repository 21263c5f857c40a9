package script

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
)

// Many servers answer JSON as one text item and no structured content: a
// call of theirs resolves to a string. mcp.json(value) makes such text the
// value it holds, and leaves any other value as it is, so that
// mcp.json(await server.tool(args)) is the same value whether the server
// sends structured content or its text.

// jsonOf is mcp.json(value).
func (e *engine) jsonOf(c goja.FunctionCall) goja.Value {
	v := c.Argument(0)
	s, ok := v.Export().(string)
	if !ok {
		return v
	}
	out, err := e.parse([]byte(s))
	if err != nil {
		panic(e.newError(e.vm.Get("SyntaxError").ToObject(e.vm),
			"mcp.json: the text is not JSON: "+strconv.Quote(clip.Runes(strings.TrimSpace(s), 41))))
	}
	return out
}

// noteJSONText remembers the first call of the run that resolved to text
// holding a JSON object or array: a TypeError the program then fails with
// most likely took that text for the value (ProgramError.JSONText).
func (e *engine) noteJSONText(id, tool string, res *catalog.Result) {
	if e.jsonText == "" && holdsJSON(res.Text()) {
		e.jsonText = id + "." + tool
	}
}

// holdsJSON says whether text is one JSON object or array.
func holdsJSON(text string) bool {
	t := strings.TrimSpace(text)
	return (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t))
}
