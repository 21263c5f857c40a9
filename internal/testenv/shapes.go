package testenv

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ModeShapes adds the tools of Shapes, each answering with the arguments
// it received as JSON text (keys sorted).
const ModeShapes = "shapes"

// Shapes are input schemas written as popular servers write them, each
// the shape of one of their tools, under a name of that tool:
//
//	set_config_value         desktop-commander: a value of anyOf string,
//	                         number, boolean, array of strings or null
//	sequentialthinking       sequential-thinking on zod 4: a property that
//	                         is a $ref to another, #/properties/..., with
//	                         a description of its own beside it (draft-07)
//	post_page                notion (OpenAPI-generated): anyOf a $ref into
//	                         #/$defs and a string; an array of objects
//	browser_take_screenshot  playwright: required properties with a
//	                         default, an enum of five literals
//	browser_emulate          an enum or null, and an optional boolean
//	                         that does not allow null
//	generate_bar_chart       @antv/mcp-server-chart: an array of objects
//	                         with an optional string (group) that agents
//	                         send as null
//
// and those of signatures.go, shapes of unions, objects and enums.
var Shapes = map[string]string{
	"set_config_value": `{"type":"object","properties":{"key":{"type":"string"},` +
		`"value":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"array","items":{"type":"string"}},{"type":"null"}]}},` +
		`"required":["key"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
	"sequentialthinking": `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{` +
		`"thought":{"type":"string"},"nextThoughtNeeded":{"type":"boolean","description":"Whether another thought step is needed"},` +
		`"thoughtNumber":{"type":"integer","minimum":1},"totalThoughts":{"type":"integer","minimum":1},` +
		`"isRevision":{"$ref":"#/properties/nextThoughtNeeded","description":"Whether this revises previous thinking"},` +
		`"revisesThought":{"$ref":"#/properties/thoughtNumber"}},` +
		`"required":["thought","nextThoughtNeeded","thoughtNumber","totalThoughts"],"additionalProperties":false}`,
	"post_page": `{"type":"object","properties":{` +
		`"parent":{"anyOf":[{"$ref":"#/$defs/parentRequest"},{"type":"string"}]},` +
		`"children":{"type":"array","items":{"$ref":"#/$defs/block"}}},"required":["parent"],` +
		`"$defs":{"parentRequest":{"type":"object","properties":{"page_id":{"type":"string","format":"uuid"}},"required":["page_id"]},` +
		`"block":{"type":"object","properties":{"type":{"type":"string"},"text":{"type":"string"}},"required":["type"]}}}`,
	"browser_take_screenshot": `{"type":"object","properties":{` +
		`"type":{"type":"string","enum":["png","jpeg"],"default":"png"},"filename":{"type":"string"},` +
		`"scale":{"type":"string","enum":["css","device"],"default":"css"},` +
		`"level":{"type":"string","enum":["error","warning","info","debug","trace"],"default":"info"},` +
		`"fullPage":{"type":"boolean"}},"required":["type","scale","level"],"additionalProperties":false,` +
		`"$schema":"http://json-schema.org/draft-07/schema#"}`,
	"browser_emulate": `{"type":"object","properties":{` +
		`"colorScheme":{"anyOf":[{"type":"string","enum":["light","dark"]},{"type":"null"}]},` +
		`"verbose":{"type":"boolean"},"region":{"type":"string"}},"required":["region"]}`,
	"generate_bar_chart": `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{` +
		`"data":{"minItems":1,"type":"array","items":{"type":"object","properties":{"category":{"type":"string"},` +
		`"value":{"type":"number"},"group":{"type":"string"}},"required":["category","value"]}},` +
		`"title":{"type":"string"}},"required":["data"]}`,
}

// addShapes adds the tools of Shapes to s.
func addShapes(s *server.MCPServer) {
	names := make([]string, 0, len(Shapes))
	for name := range Shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s.AddTool(mcp.NewToolWithRawSchema(name, "Answers with its arguments", json.RawMessage(Shapes[name])),
			func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, err := json.Marshal(r.GetArguments())
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultText(string(b)), nil
			})
	}
}
