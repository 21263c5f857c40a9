package search

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
)

// Index fields.
const (
	fieldServer = "server" // keyword: the server id, for filtering and deletion
	fieldTool   = "tool"   // the tool's name, title, description and parameters
	fieldSrv    = "srv"    // the server's id, title and description, on each tool
	fieldSDoc   = "sdoc"   // server documents only: what the server is about
)

// ServerInfo is what a server says about itself in its initialize result.
// Both fields are optional.
type ServerInfo struct {
	Title       string
	Description string
}

// maxEnumValues bounds how many enum values of one parameter are indexed.
const maxEnumValues = 20

// paramText returns the searchable text of an input schema: each property's
// name, description and string enum values, and those of the properties one
// level below (object properties and array item properties). Properties are
// visited in name order so the text is deterministic.
func paramText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b strings.Builder
	schemaText(&b, raw, 0)
	return strings.TrimSpace(b.String())
}

type schemaNode struct {
	Description string                     `json:"description"`
	Title       string                     `json:"title"`
	Properties  map[string]json.RawMessage `json:"properties"`
	Items       json.RawMessage            `json:"items"`
	Enum        []json.RawMessage          `json:"enum"`
}

func schemaText(b *strings.Builder, raw json.RawMessage, depth int) {
	var n schemaNode
	if json.Unmarshal(raw, &n) != nil {
		return
	}
	if n.Properties == nil && len(n.Items) > 0 {
		var items schemaNode
		if json.Unmarshal(n.Items, &items) == nil {
			n.Properties = items.Properties
		}
	}
	names := make([]string, 0, len(n.Properties))
	for k := range n.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		var p schemaNode
		if json.Unmarshal(n.Properties[k], &p) != nil {
			continue
		}
		b.WriteString(k)
		b.WriteString(". ")
		for _, s := range []string{p.Title, p.Description} {
			if s != "" {
				b.WriteString(s)
				b.WriteString(" ")
			}
		}
		for i, e := range p.Enum {
			var s string
			if i < maxEnumValues && json.Unmarshal(e, &s) == nil {
				b.WriteString(s)
				b.WriteString(" ")
			}
		}
		b.WriteString("\n")
		if depth == 0 {
			schemaText(b, n.Properties[k], depth+1)
		}
	}
}

// toolDoc is the bleve document of one tool.
func toolDoc(t catalog.Tool, info ServerInfo) map[string]interface{} {
	return map[string]interface{}{
		fieldServer: t.Server,
		fieldTool:   strings.Join(nonEmpty(t.Name, t.Title, t.Description, paramText(t.InputSchema)), "\n"),
		fieldSrv:    strings.Join(nonEmpty(t.Server, info.Title, info.Description), "\n"),
	}
}

// serverDoc is the bleve document of one server: its own words and the names
// and titles of its tools, so that a query about what a server does as a
// whole can lift all of its tools a little.
func serverDoc(server string, info ServerInfo, tools []catalog.Tool) map[string]interface{} {
	parts := nonEmpty(server, info.Title, info.Description)
	for _, t := range tools {
		parts = append(parts, nonEmpty(t.Name, t.Title)...)
	}
	return map[string]interface{}{fieldServer: server, fieldSDoc: strings.Join(parts, "\n")}
}

func nonEmpty(ss ...string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
