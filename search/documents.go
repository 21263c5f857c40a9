package search

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
)

// Index fields. Only the fields a Ranking searches are indexed (with
// DefaultRanking: FieldTool, FieldSrv and the server documents' sdoc). A
// text field can also be indexed stemmed, under its name with StemSuffix.
const (
	FieldName   = "name"   // the tool name
	FieldTitle  = "title"  // the tool title
	FieldDesc   = "desc"   // the tool description
	FieldParams = "params" // parameter names, descriptions and enum values
	FieldSrv    = "srv"    // the server's id, title and description, on each tool
	FieldTool   = "tool"   // name, title, desc and params in one field
	FieldAll    = "all"    // tool and srv in one field
	FieldSib    = "sib"    // the names and parameter names of the server's tools
	StemSuffix  = "_st"

	fieldServer = "server" // keyword: the server id, for filtering and deletion
	fieldSDoc   = "sdoc"   // server documents only: what the server is about
	fieldPairs  = "pairs"  // adjacent word pairs of the name and title
)

// textFields are the fields a Clause may name.
var textFields = []string{FieldName, FieldTitle, FieldDesc, FieldParams, FieldSrv, FieldTool, FieldAll, fieldSDoc, FieldSib}

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

// toolDoc is the bleve document of one tool, holding the fields that
// fields names (a stemmed field gets the text of its twin); sib is the
// server's siblingText when fields has FieldSib.
func toolDoc(t catalog.Tool, info ServerInfo, sib string, fields map[string]bool) map[string]interface{} {
	params := paramText(t.InputSchema)
	srv := strings.Join(nonEmpty(t.Server, info.Title, info.Description), "\n")
	tool := strings.Join(nonEmpty(t.Name, t.Title, t.Description, params), "\n")
	return docMap(t.Server, fields, map[string]string{
		FieldName:   t.Name,
		FieldTitle:  t.Title,
		FieldDesc:   t.Description,
		FieldParams: params,
		FieldSrv:    srv,
		FieldTool:   tool,
		FieldAll:    strings.Join(nonEmpty(tool, srv), "\n"),
		fieldPairs:  strings.Join(nonEmpty(t.Name, t.Title), "\n"),
		FieldSib:    sib,
	})
}

// serverDoc is the bleve document of one server: its own words and the names
// and titles of its tools (and their descriptions with desc set), so that a
// query about what a server does as a whole can lift all of its tools a
// little.
func serverDoc(server string, info ServerInfo, tools []catalog.Tool, desc bool, fields map[string]bool) map[string]interface{} {
	parts := nonEmpty(server, info.Title, info.Description)
	for _, t := range tools {
		parts = append(parts, nonEmpty(t.Name, t.Title)...)
		if desc {
			parts = append(parts, nonEmpty(t.Description)...)
		}
	}
	return docMap(server, fields, map[string]string{fieldSDoc: strings.Join(parts, "\n")})
}

// docMap is a document of server with the texts of the fields want names
// that are not empty.
func docMap(server string, want map[string]bool, text map[string]string) map[string]interface{} {
	m := map[string]interface{}{fieldServer: server}
	for f := range want {
		if v := text[strings.TrimSuffix(f, StemSuffix)]; v != "" {
			m[f] = v
		}
	}
	return m
}

// siblingText is the names and parameter names of a server's tools.
func siblingText(tools []catalog.Tool) string {
	var parts []string
	for _, t := range tools {
		parts = append(parts, t.Name)
		var n schemaNode
		if len(t.InputSchema) > 0 && json.Unmarshal(t.InputSchema, &n) == nil {
			names := make([]string, 0, len(n.Properties))
			for k := range n.Properties {
				names = append(names, k)
			}
			sort.Strings(names)
			parts = append(parts, names...)
		}
	}
	return strings.Join(parts, "\n")
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
