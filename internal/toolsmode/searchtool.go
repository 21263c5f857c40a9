package toolsmode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/search"
)

// Bounds of mcp_search's limit argument.
const (
	defaultSearchLimit = 5
	maxSearchLimit     = 20
)

func searchToolDef() *mcp.Tool {
	return &mcp.Tool{
		Name: SearchTool,
		Description: "Find more tools. Some tools of this server are not listed at the start: this searches them " +
			"by what they do, loads the matches and returns their definitions. A loaded tool can then be " +
			"called by its name like any other.",
		InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"query":{"type":"string","description":"What the tool should do, in a few words."},`+
			`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Most tools to load (default %d)."}},`+
			`"required":["query"],"additionalProperties":false}`, maxSearchLimit, defaultSearchLimit)),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}
}

// found is one tool mcp_search returns: its exposed definition, and where
// it comes from.
type found struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Server       string          `json:"server"`
	Tool         string          `json:"tool"`
}

// search ranks the deferred tools for a query, activates the matches and
// returns their definitions. Activation is additive. The SDK sends
// tools/list_changed 10 ms after the last tool is added, so one search
// that loads something gives one notification (searches that load within
// those 10 ms of each other share one), and one that loads nothing none.
func (s *Server) search(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// The arguments are checked as a listed tool's are.
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	schema := rawSchema(searchToolDef().InputSchema)
	raw, err := catalog.PrepareArgs(schema, raw, nil, false)
	if err != nil {
		return argsError(SearchTool, schema, err), nil
	}
	var args struct {
		Query string   `json:"query"`
		Limit *float64 `json:"limit"` // an integer (5.0 too) in bounds, by the schema
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return toolError("mcp_search: invalid arguments: " + clip.Line(err.Error())), nil
	}
	if strings.TrimSpace(args.Query) == "" {
		return toolError("mcp_search: query is empty: give a few words about what the tool should do"), nil
	}
	limit := defaultSearchLimit
	if args.Limit != nil {
		limit = int(*args.Limit)
	}
	surface := s.eng.Surface()
	s.activating.Lock()
	defer s.activating.Unlock()
	hits, err := s.index.Search(args.Query, search.Options{Limit: limit, Only: surface.Deferred})
	if err != nil {
		return toolError("mcp_search: " + clip.Line(err.Error())), nil
	}
	result := struct {
		Tools []found `json:"tools"`
	}{Tools: []found{}}
	var added []string
	for _, h := range hits {
		e, ok := s.byID[h.Server+"."+h.Name]
		if !ok || !e.deferred || surface.Check(e.tool.Server, e.tool.Name) != nil {
			continue
		}
		result.Tools = append(result.Tools, found{
			Name: e.name, Title: e.def.Title, Description: e.def.Description,
			InputSchema: rawSchema(e.def.InputSchema), OutputSchema: rawSchema(e.def.OutputSchema),
			Server: e.tool.Server, Tool: e.tool.Name,
		})
		if !s.isActive(e.name) {
			// In the registry first, then through the gate.
			s.srv.AddTool(e.def, s.proxy(e))
			added = append(added, e.name)
		}
	}
	s.activate(added...)
	text, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	msg := string(text)
	if len(result.Tools) == 0 {
		msg = "no tools match; try other words"
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: msg}},
		StructuredContent: json.RawMessage(text),
	}, nil
}

// rawSchema is a schema of a definition made by toolDef: raw JSON, or nil.
func rawSchema(v any) json.RawMessage {
	raw, _ := v.(json.RawMessage)
	return raw
}
