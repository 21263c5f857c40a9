package catalog

import "encoding/json"

// Tool is one tool as a server described it, with the raw JSON kept whole so
// that nothing the typed structs drop ($schema, anyOf, x-*) is lost.
type Tool struct {
	Server       string          `json:"server"` // server id as declared in the recipe
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Raw is the tool object exactly as tools/list returned it.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// ID is "server.tool".
func (t Tool) ID() string { return t.Server + "." + t.Name }
